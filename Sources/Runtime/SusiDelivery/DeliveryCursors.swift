public import SusiFiles
import SusiJSON
import Synchronization

/// How far each subscriber's deliveries have got, kept in a small file beside the log and
/// replaced atomically, so a restart resumes where the last run stopped. Deliveries are at
/// least once: after a crash, the events since the last save are sent again.
///
/// ```
/// {"format":"susi-cursors","version":1,"subscribers":{"billing":{"delivered":41},
///  "old":{"delivered":12,"disabled":"410 Gone","disabledAt":1795341600}}}
/// ```
public final class DeliveryCursors: Sendable {
  /// One subscriber's progress.
  public struct Cursor: Sendable, Equatable {
    /// Every event up to this seq has been delivered (or did not match the subscriber).
    public var delivered: Int
    /// Why deliveries stopped for good (`410 Gone`); nil while they go on.
    public var disabled: String?
    /// When they stopped, in Unix seconds.
    public var disabledAt: Int64?

    /// A cursor at `delivered`, disabled when `disabled` gives a reason.
    public init(delivered: Int, disabled: String? = nil, disabledAt: Int64? = nil) {
      self.delivered = delivered
      self.disabled = disabled
      self.disabledAt = disabledAt
    }
  }

  /// Where they are kept; nil keeps them in memory only.
  public let path: String?
  private let cursors: Mutex<[String: Cursor]>

  /// Loads the cursors file at `path` (a missing file means no cursors yet).
  public init(path: String?) throws(PrivateFile.Failure) {
    self.path = path
    var loaded: [String: Cursor] = [:]
    if let path, let bytes = try PrivateFile.read(path, maximumBytes: 4 << 20, ownerOnly: false) {
      do {
        let r = try FieldReader(try JSONParser.parse(bytes))
        guard try r.string("format") == "susi-cursors", try r.int("version") == 1 else {
          throw PrivateFile.Failure(path: path, reason: "is not a version 1 susi cursors file")
        }
        let all = try r.object("subscribers")
        for id in all.object.keys {
          let c = try all.object(id)
          loaded[id] = Cursor(
            delivered: try c.int("delivered"), disabled: try c.optionalString("disabled"),
            disabledAt: try c.optionalInt("disabledAt").map(Int64.init))
        }
      } catch let failure as PrivateFile.Failure {
        throw failure
      } catch {
        throw PrivateFile.Failure(path: path, reason: "is not a valid cursors file: \(error)")
      }
    }
    cursors = Mutex(loaded)
  }

  /// Cursors kept in memory only.
  public init() {
    path = nil
    cursors = Mutex([:])
  }

  /// The cursor of subscriber `id`, if it has one.
  public func cursor(_ id: String) -> Cursor? { cursors.withLock { $0[id] } }

  /// Every cursor, by subscriber id.
  public var all: [String: Cursor] { cursors.withLock { $0 } }

  /// Records that everything up to `seq` is done for `id`, and writes the file.
  public func save(_ id: String, delivered seq: Int) throws(PrivateFile.Failure) {
    try update {
      var cursor = $0[id] ?? Cursor(delivered: seq)
      cursor.delivered = seq
      $0[id] = cursor
    }
  }

  /// Stops deliveries to `id` for good (until `enable`), and writes the file.
  public func disable(_ id: String, reason: String, at seconds: Int64) throws(PrivateFile.Failure) {
    try update {
      var cursor = $0[id] ?? Cursor(delivered: 0)
      cursor.disabled = reason
      cursor.disabledAt = seconds
      $0[id] = cursor
    }
  }

  /// Lets deliveries to `id` go on from its cursor.
  public func enable(_ id: String) throws(PrivateFile.Failure) {
    try update {
      $0[id]?.disabled = nil
      $0[id]?.disabledAt = nil
    }
  }

  /// Forgets the cursor of `id`, and writes the file.
  public func remove(_ id: String) throws(PrivateFile.Failure) {
    try update { $0[id] = nil }
  }

  private func update(_ change: (inout [String: Cursor]) -> Void) throws(PrivateFile.Failure) {
    try cursors.withLock { (cursors) throws(PrivateFile.Failure) in
      var next = cursors
      change(&next)
      guard next != cursors else { return }
      if let path { try PrivateFile.write(Self.encode(next), to: path) }
      cursors = next
    }
  }

  static func encode(_ cursors: [String: Cursor]) -> [UInt8] {
    var w = JSONWriter()
    w.object { o in
      o.field("format", "susi-cursors")
      o.field("version", 1)
      o.field("subscribers") { w in
        w.object { o in
          for id in cursors.keys.sorted() {
            let cursor = cursors[id]!
            o.field(dynamic: id) { w in
              w.object {
                $0.field("delivered", cursor.delivered)
                $0.field("disabled", cursor.disabled)
                $0.field("disabledAt", cursor.disabledAt.map(Int.init))
              }
            }
          }
        }
      }
    }
    w.byte(0x0A)
    return w.bytes
  }
}
