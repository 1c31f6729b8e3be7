import Foundation

/// A libpq connection URI (`postgresql://` or `postgres://`), checked to hold no password: the
/// password comes from `PGPASSFILE`, `~/.pgpass` or `PGPASSWORD`, which libpq reads itself, so it
/// never appears on a command line, in a log or in an error. Shown (`description`), a URI has any
/// password it might still carry replaced by `***`.
public struct PostgresURI: Sendable, Equatable, CustomStringConvertible {
  /// The URI as libpq gets it.
  public let text: String

  /// The schemes libpq accepts for a URI.
  public static let schemes = ["postgresql://", "postgres://"]

  /// Whether `text` is meant as a PostgreSQL URI (rather than a file path).
  public static func looksLikeURI(_ text: String) -> Bool {
    schemes.contains { text.lowercased().hasPrefix($0) }
  }

  /// Checks `text`: a PostgreSQL URI without a password in it.
  public init(_ text: String) throws(PostgresError) {
    guard Self.looksLikeURI(text) else {
      throw PostgresError(
        .invalidURI,
        "'\(Self.redact(text))' is not a PostgreSQL URI (postgresql://[USER@][HOST][:PORT]/DB)")
    }
    if Self.userInfoPassword(in: text) != nil || Self.queryPassword(in: text) != nil {
      throw PostgresError(
        .invalidURI,
        "the URI \(Self.redact(text)) holds a password; put it in PGPASSFILE, ~/.pgpass or "
          + "PGPASSWORD instead, so it never shows on a command line or in a log")
    }
    self.text = text
  }

  public var description: String { Self.redact(text) }

  /// `text` with the password of its user part and any `password=` parameter replaced by `***`.
  public static func redact(_ text: String) -> String {
    var result = text
    if let range = userInfoPassword(in: result) { result.replaceSubrange(range, with: "***") }
    while let range = queryPassword(in: result), result[range] != "***" {
      result.replaceSubrange(range, with: "***")
    }
    return result
  }

  /// The range of the password in `scheme://user:password@host…`.
  private static func userInfoPassword(in text: String) -> Range<String.Index>? {
    guard let schemeEnd = text.range(of: "://")?.upperBound else { return nil }
    let rest = text[schemeEnd...]
    let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
    let authority = rest[..<authorityEnd]
    guard let at = authority.lastIndex(of: "@") else { return nil }
    let userInfo = authority[..<at]
    guard let colon = userInfo.firstIndex(of: ":") else { return nil }
    return userInfo.index(after: colon)..<at
  }

  /// The range of the value of the first `password=` parameter, not yet redacted.
  private static func queryPassword(in text: String) -> Range<String.Index>? {
    guard let question = text.firstIndex(of: "?") else { return nil }
    var start = text.index(after: question)
    while start < text.endIndex {
      let end = text[start...].firstIndex(of: "&") ?? text.endIndex
      let pair = text[start..<end]
      if let equals = pair.firstIndex(of: "="), pair[..<equals].lowercased() == "password" {
        let value = pair.index(after: equals)..<end
        if text[value] != "***" { return value }
      }
      start = end < text.endIndex ? text.index(after: end) : end
    }
    return nil
  }

  /// The value of the query parameter `name` (not decoded), if present.
  public func parameter(_ name: String) -> String? {
    guard let question = text.firstIndex(of: "?") else { return nil }
    for pair in text[text.index(after: question)...].split(separator: "&") {
      let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      if parts[0] == name { return parts.count > 1 ? String(parts[1]) : "" }
    }
    return nil
  }

  /// The URI without the query parameter `name` (which libpq would refuse as unknown).
  public func removing(parameter name: String) -> PostgresURI {
    guard let question = text.firstIndex(of: "?") else { return self }
    let kept = text[text.index(after: question)...].split(separator: "&").filter {
      $0.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0] != name
    }
    let base = String(text[..<question])
    return PostgresURI(
      checked: kept.isEmpty ? base : base + "?" + kept.joined(separator: "&"))
  }

  private init(checked text: String) { self.text = text }
}
