extension String {
  /// The text with everything a terminal would act on removed: escape sequences cannot reach the
  /// terminal from a server's answer. Control characters are dropped, tabs become spaces; line
  /// breaks stay.
  public var terminalSafe: String {
    var out = String.UnicodeScalarView()
    for scalar in unicodeScalars {
      switch scalar.value {
      case 0x0A: out.append(scalar)
      case 0x09: out.append(" ")
      case 0..<0x20, 0x7F..<0xA0: continue
      // Bidirectional overrides and isolates could make text display differently from what it is.
      case 0x202A...0x202E, 0x2066...0x2069: continue
      default: out.append(scalar)
      }
    }
    return String(out)
  }

  /// The text on one line: terminal-safe, every run of whitespace (line breaks included) turned
  /// into one space, trimmed.
  public var singleLine: String {
    var out = ""
    var pendingSpace = false
    for character in terminalSafe {
      if character.isWhitespace {
        pendingSpace = !out.isEmpty
        continue
      }
      if pendingSpace { out.append(" ") }
      pendingSpace = false
      out.append(character)
    }
    return out
  }
}
