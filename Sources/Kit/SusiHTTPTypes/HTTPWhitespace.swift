extension String {
  /// The string without leading and trailing spaces and tabs (HTTP's optional whitespace).
  public func trimmingSpaces() -> String {
    var scalars = Substring(self).unicodeScalars
    while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
    while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
    return String(scalars)
  }
}
