public import SusiFiles

/// A file of `key = value` lines: blank lines and lines starting with `#` are skipped, spaces
/// around key and value are dropped, and a later line for the same key wins. Used by the config
/// file and the remembered server choice.
public struct KeyValueFile: Sendable, Equatable {
  /// The entries in file order (one per key).
  public var entries: [(key: String, value: String)] = []

  public init(entries: [(key: String, value: String)] = []) { self.entries = entries }

  public static func == (a: KeyValueFile, b: KeyValueFile) -> Bool {
    a.entries.map(\.key) == b.entries.map(\.key) && a.entries.map(\.value) == b.entries.map(\.value)
  }

  public subscript(key: String) -> String? {
    get { entries.first { $0.key == key }?.value }
    set {
      if let newValue {
        if let index = entries.firstIndex(where: { $0.key == key }) {
          entries[index].value = newValue
        } else {
          entries.append((key, newValue))
        }
      } else {
        entries.removeAll { $0.key == key }
      }
    }
  }

  /// A line that is neither blank, a comment nor `key = value`.
  public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
    public var path: String
    public var line: Int
    public var message: String
    public var description: String { "\(path):\(line): \(message)" }
  }

  /// Parses `text`; `path` only names the file in errors.
  public static func parse(_ text: String, path: String) throws(Problem) -> KeyValueFile {
    var file = KeyValueFile()
    for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let line = raw.trimmingSpaces
      if line.isEmpty || line.hasPrefix("#") { continue }
      guard let equals = line.firstIndex(of: "=") else {
        throw Problem(path: path, line: index + 1, message: "expected 'key = value', not '\(line)'")
      }
      let key = String(line[..<equals]).trimmingSpaces
      let value = String(line[line.index(after: equals)...]).trimmingSpaces
      guard !key.isEmpty else {
        throw Problem(path: path, line: index + 1, message: "a line with no key before '='")
      }
      file[key] = value
    }
    return file
  }

  /// The file at `path`, nil when there is none.
  public static func load(_ path: String) throws(Problem) -> KeyValueFile? {
    let bytes: [UInt8]?
    do {
      bytes = try PrivateFile.read(path, maximumBytes: 64 * 1024, ownerOnly: false)
    } catch {
      throw Problem(path: path, line: 0, message: error.message)
    }
    guard let bytes else { return nil }
    return try parse(String(decoding: bytes, as: UTF8.self), path: path)
  }

  /// The text of the file, with `header` (comment lines) first.
  public func text(header: [String] = []) -> String {
    (header.map { "# \($0)" } + entries.map { "\($0.key) = \($0.value)" }).map { $0 + "\n" }
      .joined()
  }

  /// Writes the file atomically (mode 0600), creating its folder.
  public func save(_ path: String, header: [String] = []) throws(PrivateFile.Failure) {
    let folder = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
      .joined(separator: "/")
    if !folder.isEmpty { try PrivateFile.makeDirectory(folder) }
    try PrivateFile.write(Array(text(header: header).utf8), to: path)
  }
}

extension StringProtocol {
  var trimmingSpaces: String {
    let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
    guard let first = firstIndex(where: { !isSpace($0) }) else { return "" }
    let last = lastIndex(where: { !isSpace($0) })!
    return String(self[first...last])
  }
}
