public import SusiAccess
public import SusiDelivery
public import SusiFiles
import SusiJSON
import SusiPostgres
import Synchronization

/// The hashes of API key secrets for a log in PostgreSQL, in the database beside it, so a key
/// issued on one node of a fleet is accepted by every node and a revoked one by none:
///
/// ```sql
/// CREATE TABLE susi_key_hashes (log text, key text, sha256 bytea, PRIMARY KEY (log, key))
/// ```
///
/// As with the keys file, the hash is stored before the log records the key and removed after
/// it records the revocation; each node reads the table again when it applies an `issueKey` or
/// `revokeKey` another node appended (see `AccessGate`), which `NOTIFY` brings within
/// milliseconds.
public final class PostgresKeyHashes: KeyHashStorage {
  public let location: PostgresLogLocation
  private let connection: PostgresShareConnection

  public init(location: PostgresLogLocation) {
    self.location = location
    connection = PostgresShareConnection(location)
  }

  public var name: String { "susi_key_hashes (log \(location.table))" }

  public func load() throws(PrivateFile.Failure) -> [String: [UInt8]] {
    let rows = try connection.run(name) { open throws(PostgresError) in
      try open.execute(
        "SELECT key, sha256 FROM susi_key_hashes WHERE log = $1", [.text(location.table)],
        binaryResult: true)
    }
    var hashes: [String: [UInt8]] = [:]
    for row in 0..<rows.count {
      guard let id = rows.text(row, 0), let hash = rows.bytes(row, 1), hash.count == 32 else {
        throw PrivateFile.Failure(path: name, reason: "a row holds no key id or no valid sha256")
      }
      hashes[id] = hash
    }
    return hashes
  }

  public func store(_ id: String, hash: [UInt8]?) throws(PrivateFile.Failure) -> [String: [UInt8]] {
    _ = try connection.run(name) { open throws(PostgresError) in
      if let hash {
        return try open.execute(
          "INSERT INTO susi_key_hashes (log, key, sha256) VALUES ($1, $2, $3) "
            + "ON CONFLICT (log, key) DO UPDATE SET sha256 = excluded.sha256",
          [.text(location.table), .text(id), .bytes(hash)])
      } else {
        return try open.execute(
          "DELETE FROM susi_key_hashes WHERE log = $1 AND key = $2",
          [.text(location.table), .text(id)])
      }
    }
    return try load()
  }

  /// Closes the connection.
  public func close() { connection.close() }
}

/// The webhook subscribers of a log in PostgreSQL, in the database beside it, so a subscriber
/// registered on one node of a fleet is delivered by whichever node holds its lease:
///
/// ```sql
/// CREATE TABLE susi_subscribers (log text, id text, subscriber bytea, PRIMARY KEY (log, id))
/// ```
///
/// `subscriber` holds the entry as the subscribers file would (secret included). Each node's
/// delivery service reads the table again at every lease renewal (`DeliveryService`), so it
/// takes part in delivering a subscriber another node added within one renewal period.
public final class PostgresSubscribers: SubscriberStorage {
  public let location: PostgresLogLocation
  private let connection: PostgresShareConnection

  public init(location: PostgresLogLocation) {
    self.location = location
    connection = PostgresShareConnection(location)
  }

  public var name: String { "susi_subscribers (log \(location.table))" }

  public func load() throws(PrivateFile.Failure) -> [Subscriber] {
    let rows = try connection.run(name) { open throws(PostgresError) in
      try open.execute(
        "SELECT id, subscriber FROM susi_subscribers WHERE log = $1 ORDER BY id",
        [.text(location.table)], binaryResult: true)
    }
    var list: [Subscriber] = []
    for row in 0..<rows.count {
      let id = rows.text(row, 0) ?? "?"
      guard let bytes = rows.bytes(row, 1) else {
        throw PrivateFile.Failure(path: name, reason: "subscriber \(id) has no entry")
      }
      let subscriber: Subscriber
      do {
        subscriber = try Subscriber(reading: FieldReader(try JSONParser.parse(bytes)))
      } catch {
        throw PrivateFile.Failure(path: name, reason: "subscriber \(id) is not valid: \(error)")
      }
      if let problem = subscriber.problem {
        throw PrivateFile.Failure(path: name, reason: problem)
      }
      guard subscriber.id == id else {
        throw PrivateFile.Failure(path: name, reason: "the row \(id) holds \(subscriber.id)")
      }
      list.append(subscriber)
    }
    return list
  }

  public func add(_ subscriber: Subscriber) throws(PrivateFile.Failure) -> (
    added: Bool, now: [Subscriber]
  ) {
    let inserted = try connection.run(name) { open throws(PostgresError) in
      try open.execute(
        "INSERT INTO susi_subscribers (log, id, subscriber) VALUES ($1, $2, $3) "
          + "ON CONFLICT (log, id) DO NOTHING",
        [.text(location.table), .text(subscriber.id), .bytes(subscriber.storedEntry())])
    }
    return (inserted.affected == 1, try load())
  }

  public func remove(_ id: String) throws(PrivateFile.Failure) -> (
    removed: Bool, now: [Subscriber]
  ) {
    let deleted = try connection.run(name) { open throws(PostgresError) in
      try open.execute(
        "DELETE FROM susi_subscribers WHERE log = $1 AND id = $2",
        [.text(location.table), .text(id)])
    }
    return (deleted.affected == 1, try load())
  }

  /// Closes the connection.
  public func close() { connection.close() }
}

/// One connection for the tables shared beside a log, opened when first needed and again after
/// it broke; the log's tables are made (or upgraded) on the first connect.
final class PostgresShareConnection: Sendable {
  let location: PostgresLogLocation
  private let connection = Mutex<PostgresConnection?>(nil)

  init(_ location: PostgresLogLocation) { self.location = location }

  /// Runs `body` on the connection; a database error becomes a failure naming `name`.
  func run(_ name: String, _ body: (PostgresConnection) throws(PostgresError) -> PostgresResult)
    throws(PrivateFile.Failure) -> PostgresResult
  {
    do {
      return try connection.withLock { connection throws(PostgresError) -> PostgresResult in
        if connection == nil || connection?.isHealthy == false {
          connection?.close()
          connection = try PostgresEventLog.connect(location)
        }
        guard let open = connection else { throw PostgresError(.closed, "no connection") }
        return try body(open)
      }
    } catch {
      connection.withLock {
        $0?.close()
        $0 = nil
      }
      throw PrivateFile.Failure(path: name, reason: "the database refused: \(error)")
    }
  }

  func close() {
    connection.withLock {
      $0?.close()
      $0 = nil
    }
  }
}
