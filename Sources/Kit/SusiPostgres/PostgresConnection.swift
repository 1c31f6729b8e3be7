import CPostgreSQL
import Glibc

/// A value bound to a statement's `$N` parameter.
public enum PostgresValue: Sendable, Equatable {
  case null
  /// Sent as text; the statement casts it when it needs another type (`$1::timestamptz`).
  case text(String)
  case int(Int)
  /// Sent in binary: a `bytea` parameter, byte for byte.
  case bytes([UInt8])
}

/// One statement of a pipeline (`PostgresConnection.executePipeline`).
public struct PostgresStatement: Sendable {
  /// The statement; with parameters, exactly one, whose `$1`, `$2`… take `parameters`.
  public var sql: String
  public var parameters: [PostgresValue]
  /// Parsed and planned once on a connection, and from then on executed by name: for a
  /// statement a connection runs again and again.
  public var prepared: Bool
  /// Whether the columns come in binary (see `PostgresConnection.execute`).
  public var binaryResult: Bool

  public init(
    _ sql: String, _ parameters: [PostgresValue] = [], prepared: Bool = false,
    binaryResult: Bool = false
  ) {
    self.sql = sql
    self.parameters = parameters
    self.prepared = prepared
    self.binaryResult = binaryResult
  }
}

/// A notification received on a channel this connection listens to.
public struct PostgresNotification: Sendable, Equatable {
  public var channel: String
  public var payload: String
}

/// One connection to a PostgreSQL server, through libpq. Not thread-safe: one owner at a time
/// (wrap it in a `Mutex` to share it).
public final class PostgresConnection {
  private var connection: OpaquePointer?
  /// The statements prepared on this connection (see `PostgresStatement.prepared`): each one's
  /// name, by its text.
  private var preparedNames: [String: String] = [:]
  /// The URI it was opened with (its `description` hides any password).
  public let uri: PostgresURI

  /// Connects to `uri`; the password, if the server asks for one, comes from `PGPASSFILE`,
  /// `~/.pgpass` or `PGPASSWORD`.
  public init(_ uri: PostgresURI) throws(PostgresError) {
    self.uri = uri
    guard let connection = PQconnectdb(uri.text) else {
      throw PostgresError(.connection, "cannot connect to \(uri): out of memory")
    }
    guard PQstatus(connection) == CONNECTION_OK else {
      let message = Self.text(PQerrorMessage(connection))
      PQfinish(connection)
      throw PostgresError(.connection, "cannot connect to \(uri): \(message)")
    }
    self.connection = connection
    // Notices (a table that already exists, …) are not for the user's terminal.
    PQsetNoticeProcessor(connection, { _, _ in }, nil)
  }

  deinit { close() }

  /// Closes the connection; every later call throws `.closed`.
  public func close() {
    if let connection { PQfinish(connection) }
    connection = nil
  }

  /// Whether the connection is open and usable.
  public var isHealthy: Bool {
    guard let connection else { return false }
    return PQstatus(connection) == CONNECTION_OK
  }

  /// Re-establishes a broken connection (a server restart, a dropped socket). Channels listened
  /// to before are not listened to any more.
  public func reset() throws(PostgresError) {
    let connection = try open()
    PQreset(connection)
    preparedNames = [:]
    guard PQstatus(connection) == CONNECTION_OK else {
      throw PostgresError(
        .connection, "cannot reconnect to \(uri): \(Self.text(PQerrorMessage(connection)))")
    }
  }

  /// Runs `sql`. Without parameters it may hold several statements separated by `;` (the result
  /// is the last one's); with them, exactly one, whose `$1`, `$2`… take `parameters`.
  ///
  /// - Parameter binaryResult: ask for the columns in binary (`bytea` as its raw bytes, `bigint`
  ///   as 8 big-endian bytes) rather than as text.
  @discardableResult
  public func execute(
    _ sql: String, _ parameters: [PostgresValue] = [], binaryResult: Bool = false
  ) throws(PostgresError) -> PostgresResult {
    let connection = try open()
    let result: OpaquePointer?
    if parameters.isEmpty && !binaryResult {
      result = PQexec(connection, sql)
    } else {
      result = Self.withParameters(parameters) { values, lengths, formats in
        PQexecParams(
          connection, sql, Int32(parameters.count), nil, values, lengths, formats,
          binaryResult ? 1 : 0)
      }
    }
    return try take(result, binary: binaryResult)
  }

  /// Sends several statements with parameters in one round trip (libpq's pipeline mode) and
  /// returns their results in order. The first failing statement's error is thrown; in a
  /// transaction the statements after it are skipped by the server.
  @discardableResult
  public func executePipeline(
    _ statements: [(sql: String, parameters: [PostgresValue])]
  ) throws(PostgresError) -> [PostgresResult] {
    try executePipeline(statements.map { PostgresStatement($0.sql, $0.parameters) })
  }

  /// Sends `statements` in one round trip (libpq's pipeline mode) and returns their results in
  /// order. A prepared statement met for the first time on this connection is parsed and planned
  /// in the same round trip, then kept under a name: later round trips only bind and execute
  /// it. The first failing statement's error is thrown; in a transaction the statements after it
  /// are skipped by the server.
  @discardableResult
  public func executePipeline(_ statements: [PostgresStatement]) throws(PostgresError)
    -> [PostgresResult]
  {
    let connection = try open()
    guard PQenterPipelineMode(connection) == 1 else {
      throw PostgresError(.connection, "cannot enter pipeline mode: \(errorText)")
    }
    defer { PQexitPipelineMode(connection) }
    // What the server answers, in order: a prepare (its name, kept once it succeeds) or a
    // statement (its index).
    var expected: [(prepared: (sql: String, name: String)?, statement: Int)] = []
    var naming: [String: String] = [:]
    for (index, statement) in statements.enumerated() {
      var name: String?
      if statement.prepared {
        if let known = preparedNames[statement.sql] ?? naming[statement.sql] {
          name = known
        } else {
          let fresh = "susi_\(preparedNames.count + naming.count + 1)"
          guard
            PQsendPrepare(connection, fresh, statement.sql, Int32(statement.parameters.count), nil)
              == 1
          else { throw PostgresError(.connection, errorText) }
          naming[statement.sql] = fresh
          expected.append(((statement.sql, fresh), index))
          name = fresh
        }
      }
      let sent = Self.withParameters(statement.parameters) { values, lengths, formats in
        if let name {
          PQsendQueryPrepared(
            connection, name, Int32(statement.parameters.count), values, lengths, formats,
            statement.binaryResult ? 1 : 0)
        } else {
          PQsendQueryParams(
            connection, statement.sql, Int32(statement.parameters.count), nil, values, lengths,
            formats, statement.binaryResult ? 1 : 0)
        }
      }
      guard sent == 1 else { throw PostgresError(.connection, errorText) }
      expected.append((nil, index))
    }
    guard PQpipelineSync(connection) == 1 else { throw PostgresError(.connection, errorText) }
    var results: [PostgresResult] = []
    results.reserveCapacity(statements.count)
    var firstError: PostgresError?
    for answer in expected {
      guard let result = PQgetResult(connection) else {
        throw PostgresError(.connection, "the pipeline ended early: \(errorText)")
      }
      // Each answer is followed by a null that ends it.
      while let extra = PQgetResult(connection) { PQclear(extra) }
      if PQresultStatus(result) == PGRES_PIPELINE_ABORTED {
        PQclear(result)
        if answer.prepared == nil {
          results.append(PostgresResult(rows: [], binary: false, affected: 0))
        }
        continue
      }
      let binary = statements[answer.statement].binaryResult
      do {
        let taken = try take(result, binary: binary, drain: false)
        if let prepared = answer.prepared {
          preparedNames[prepared.sql] = prepared.name
        } else {
          results.append(taken)
        }
      } catch {
        if firstError == nil { firstError = error }
        if answer.prepared == nil {
          results.append(PostgresResult(rows: [], binary: binary, affected: 0))
        }
      }
    }
    // The sync point's own result.
    while let result = PQgetResult(connection) {
      let status = PQresultStatus(result)
      PQclear(result)
      if status == PGRES_PIPELINE_SYNC { break }
    }
    if let firstError { throw firstError }
    return results
  }

  // MARK: Notifications

  /// Starts listening on `channel` (a plain identifier).
  public func listen(_ channel: String) throws(PostgresError) {
    try execute("LISTEN \(try Self.identifier(channel))")
  }

  /// The socket libpq reads from: readable when a notification (or anything else) arrives.
  public var socket: Int32 {
    guard let connection else { return -1 }
    return PQsocket(connection)
  }

  /// Reads whatever arrived on the socket (without blocking) and returns the notifications it
  /// held, in order.
  public func notifications() throws(PostgresError) -> [PostgresNotification] {
    let connection = try open()
    guard PQconsumeInput(connection) == 1 else {
      throw PostgresError(.connection, "the connection broke: \(errorText)")
    }
    var received: [PostgresNotification] = []
    while let notify = PQnotifies(connection) {
      received.append(
        PostgresNotification(
          channel: Self.text(notify.pointee.relname), payload: Self.text(notify.pointee.extra)))
      PQfreemem(notify)
    }
    return received
  }

  /// Waits until a notification arrives, `wake` (a descriptor, or -1) becomes readable, or
  /// `timeoutMilliseconds` pass (-1: no limit). Returns the notifications received (possibly
  /// none).
  public func waitForNotifications(wake: Int32 = -1, timeoutMilliseconds: Int32 = -1)
    throws(PostgresError) -> [PostgresNotification]
  {
    let pending = try notifications()
    if !pending.isEmpty { return pending }
    var descriptors = [
      pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
      pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
    ]
    let count = poll(&descriptors, wake >= 0 ? 2 : 1, timeoutMilliseconds)
    if count < 0 && errno != EINTR {
      throw PostgresError(.connection, "poll failed: \(String(cString: strerror(errno)))")
    }
    return try notifications()
  }

  // MARK: Quoting

  /// `name` as an SQL identifier: letters, digits and `_`, starting with a letter or `_`, at
  /// most 63 bytes (refused otherwise rather than quoted, so no name can smuggle SQL in).
  public static func identifier(_ name: String) throws(PostgresError) -> String {
    let bytes = Array(name.utf8)
    let valid =
      !bytes.isEmpty && bytes.count <= 63
      && bytes.allSatisfy {
        ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || $0 == UInt8(ascii: "_")
          || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
      } && !(bytes[0] >= UInt8(ascii: "0") && bytes[0] <= UInt8(ascii: "9"))
    guard valid else {
      throw PostgresError(
        .query,
        "'\(name)' is not a usable name: lower-case letters, digits and _, starting with a "
          + "letter or _, at most 63 characters")
    }
    return name
  }

  // MARK: Pieces

  private func open() throws(PostgresError) -> OpaquePointer {
    guard let connection else { throw PostgresError(.closed, "the connection is closed") }
    return connection
  }

  private var errorText: String {
    guard let connection else { return "the connection is closed" }
    return Self.text(PQerrorMessage(connection))
  }

  /// Turns a libpq result into a `PostgresResult` (copying its cells) or an error, and frees it.
  private func take(_ result: OpaquePointer?, binary: Bool, drain: Bool = true)
    throws(PostgresError) -> PostgresResult
  {
    guard let result else {
      throw PostgresError(
        PQstatus(connection) == CONNECTION_OK ? .query : .connection, errorText)
    }
    defer { PQclear(result) }
    switch PQresultStatus(result) {
    case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
      let rowCount = Int(PQntuples(result))
      let columnCount = Int(PQnfields(result))
      var rows: [[[UInt8]?]] = []
      rows.reserveCapacity(rowCount)
      for row in 0..<rowCount {
        var cells: [[UInt8]?] = []
        cells.reserveCapacity(columnCount)
        for column in 0..<columnCount {
          if PQgetisnull(result, Int32(row), Int32(column)) == 1 {
            cells.append(nil)
            continue
          }
          let length = Int(PQgetlength(result, Int32(row), Int32(column)))
          let start = PQgetvalue(result, Int32(row), Int32(column))
          cells.append(
            start.map { pointer in
              pointer.withMemoryRebound(to: UInt8.self, capacity: length) {
                Array(UnsafeBufferPointer(start: $0, count: length))
              }
            } ?? [])
        }
        rows.append(cells)
      }
      let affected = Int(Self.text(PQcmdTuples(result))) ?? 0
      return PostgresResult(rows: rows, binary: binary, affected: affected)
    default:
      let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
      let message = Self.text(PQresultErrorMessage(result))
      throw PostgresError(
        PQstatus(connection) == CONNECTION_OK ? .query : .connection,
        message.isEmpty ? errorText : message, sqlState: state)
    }
  }

  private static func text(_ pointer: UnsafePointer<CChar>?) -> String {
    guard let pointer else { return "" }
    return String(cString: pointer).trimmingWhitespace
  }

  private static func text(_ pointer: UnsafeMutablePointer<CChar>?) -> String {
    text(UnsafePointer(pointer))
  }

  /// Calls `body` with libpq's parameter arrays: text values as C strings, bytes in binary.
  private static func withParameters<T>(
    _ parameters: [PostgresValue],
    _ body: (
      UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?
    ) -> T
  ) -> T {
    var buffers: [[UInt8]?] = []
    var lengths: [Int32] = []
    var formats: [Int32] = []
    for parameter in parameters {
      switch parameter {
      case .null:
        buffers.append(nil)
        lengths.append(0)
        formats.append(0)
      case .text(let text):
        buffers.append(Array(text.utf8) + [0])
        lengths.append(0)
        formats.append(0)
      case .int(let value):
        buffers.append(Array(String(value).utf8) + [0])
        lengths.append(0)
        formats.append(0)
      case .bytes(let bytes):
        // A zero-length buffer still needs an address.
        buffers.append(bytes.isEmpty ? [0] : bytes)
        lengths.append(Int32(bytes.count))
        formats.append(1)
      }
    }
    let pointers = buffers.map { buffer -> UnsafeMutablePointer<CChar>? in
      guard let buffer else { return nil }
      let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: buffer.count)
      buffer.withUnsafeBytes { raw in
        pointer.withMemoryRebound(to: UInt8.self, capacity: buffer.count) {
          $0.update(from: raw.bindMemory(to: UInt8.self).baseAddress!, count: buffer.count)
        }
      }
      return pointer
    }
    defer { for pointer in pointers { pointer?.deallocate() } }
    let constant = pointers.map { UnsafePointer($0) }
    return constant.withUnsafeBufferPointer { values in
      lengths.withUnsafeBufferPointer { lengths in
        formats.withUnsafeBufferPointer { formats in
          body(values.baseAddress, lengths.baseAddress, formats.baseAddress)
        }
      }
    }
  }
}

/// The rows a statement returned, copied out of libpq.
public struct PostgresResult: Sendable {
  /// Each row's cells: the bytes as the server sent them (text, or binary when asked), nil for
  /// NULL.
  public var rows: [[[UInt8]?]]
  /// Whether the cells are in binary.
  public var binary: Bool
  /// How many rows an INSERT, UPDATE or DELETE touched.
  public var affected: Int

  public init(rows: [[[UInt8]?]], binary: Bool, affected: Int) {
    self.rows = rows
    self.binary = binary
    self.affected = affected
  }

  public var count: Int { rows.count }

  /// The cell's bytes (nil for NULL).
  public func bytes(_ row: Int, _ column: Int) -> [UInt8]? { rows[row][column] }

  /// The cell as text (nil for NULL).
  public func text(_ row: Int, _ column: Int) -> String? {
    rows[row][column].map { String(decoding: $0, as: UTF8.self) }
  }

  /// The cell as an integer: parsed from text, or an 8-, 4- or 2-byte big-endian binary value.
  public func int(_ row: Int, _ column: Int) -> Int? {
    guard let cell = rows[row][column] else { return nil }
    if binary {
      guard [2, 4, 8].contains(cell.count) else { return nil }
      var value: Int64 = cell[0] >= 0x80 ? -1 : 0
      for byte in cell { value = value << 8 | Int64(byte) }
      return Int(value)
    }
    return Int(String(decoding: cell, as: UTF8.self))
  }
}

extension String {
  fileprivate var trimmingWhitespace: String {
    var scalars = Substring(self)
    while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
    while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
    return String(scalars)
  }
}
