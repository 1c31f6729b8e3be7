import Foundation

/// Why talking to PostgreSQL failed. The message is libpq's or the server's, with any password
/// taken out (see `PostgresError.scrub`).
public struct PostgresError: Error, Equatable, Sendable, CustomStringConvertible {
  /// What failed.
  public enum Kind: String, Sendable, Equatable {
    /// The URI was refused before any connection was tried.
    case invalidURI
    /// Connecting failed, or the connection broke.
    case connection
    /// The server refused a statement (the SQLSTATE says why).
    case query
    /// The connection was closed by this program.
    case closed
  }

  public var kind: Kind
  /// The five-character SQLSTATE the server reported, for `.query`.
  public var sqlState: String?
  public var message: String

  public init(_ kind: Kind, _ message: String, sqlState: String? = nil) {
    self.kind = kind
    self.message = Self.scrub(message)
    self.sqlState = sqlState
  }

  public var description: String {
    if let sqlState { "\(message) (SQLSTATE \(sqlState))" } else { message }
  }

  /// True for a unique-key violation (SQLSTATE 23505).
  public var isUniqueViolation: Bool { sqlState == "23505" }

  /// `text` with the value of `PGPASSWORD` and any password in a URI replaced by `***`.
  static func scrub(_ text: String) -> String {
    var result = text.trimmingCharacters(in: .whitespacesAndNewlines)
    if let password = ProcessInfo.processInfo.environment["PGPASSWORD"], password.count >= 1 {
      result = result.replacingOccurrences(of: password, with: "***")
    }
    for scheme in PostgresURI.schemes {
      var searchStart = result.startIndex
      while let found = result.range(
        of: scheme, options: .caseInsensitive, range: searchStart..<result.endIndex)
      {
        let end =
          result[found.lowerBound...].firstIndex { $0 == " " || $0 == "\"" || $0 == "'" }
          ?? result.endIndex
        let redacted = PostgresURI.redact(String(result[found.lowerBound..<end]))
        result.replaceSubrange(found.lowerBound..<end, with: redacted)
        searchStart = result.index(found.lowerBound, offsetBy: redacted.count)
      }
    }
    return result
  }
}
