public import SusiPostgres

/// Where a log lives in PostgreSQL: the database (a libpq URI) and the table holding the log.
///
/// `postgresql://[USER@][HOST][:PORT]/DB[?…][&log=NAME]`: the `log` parameter names the table
/// (default `susi_events`); the other parameters go to libpq unchanged.
public struct PostgresLogLocation: Sendable, Equatable, CustomStringConvertible {
  /// The database, without the `log` parameter.
  public var database: PostgresURI
  /// The table holding the log (a plain lower-case identifier).
  public var table: String

  /// The table used when the URI names none.
  public static let defaultTable = "susi_events"

  /// Whether `text` names a PostgreSQL log (rather than a file).
  public static func isLocation(_ text: String) -> Bool { PostgresURI.looksLikeURI(text) }

  /// Reads `text`: a PostgreSQL URI without a password, with an optional `log=NAME`.
  public init(_ text: String) throws(PostgresError) {
    let uri = try PostgresURI(text)
    let table = uri.parameter("log") ?? Self.defaultTable
    do {
      self.table = try PostgresConnection.identifier(table)
    } catch {
      throw PostgresError(.invalidURI, "the log= option: \(error.message)")
    }
    database = uri.removing(parameter: "log")
  }

  /// The URI as given, with any password hidden.
  public var description: String {
    table == Self.defaultTable ? database.description : "\(database) (log \(table))"
  }

  /// The channel notifications of new events go to: the table's name.
  public var channel: String { table }

  /// A key for advisory locks on this log: a stable 31-bit hash of the table name.
  var lockKey: Int {
    var hash: UInt32 = 2_166_136_261
    for byte in table.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
    return Int(hash & 0x7fff_ffff)
  }
}
