public import SusiCore
import SusiCrypto
public import SusiEventLog
import SusiJSON

/// Everything replay had folded from a log up to one record, saved so a start can skip that part
/// of the log: the state, the result ledger, the idempotency keys, and the checkpoint naming the
/// record (seq, line, byte offset, CRC) so it is only ever applied to the log it came from.
///
/// A file holds two lines (the format is described in Events/README.md):
/// a header `{"snapshot":1,"seq":…,"line":…,"offset":…,"recordLength":…,"recordCRC":"…",
/// "stateDigest":"…","bodyLength":…,"bodySHA256":"…"}` and the body, one JSON object.
public struct Snapshot: Sendable {
  /// The format version written and the only one read.
  public static let formatVersion = 1

  public var checkpoint: EventLogCheckpoint
  public var recovered: Recovered

  public init(checkpoint: EventLogCheckpoint, recovered: Recovered) {
    self.checkpoint = checkpoint
    self.recovered = recovered
  }

  /// Why a snapshot file cannot be used.
  public struct Problem: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(description: String) { self.description = description }
  }

  /// The file's bytes: header line and body line.
  public func encoded() -> [UInt8] { encodedWithDigest().bytes }

  /// The file's bytes, and the state digest its header records.
  public func encodedWithDigest() -> (bytes: [UInt8], stateDigest: String) {
    let body = Self.body(of: recovered)
    let stateDigest = Self.digest(recovered.state)
    var w = JSONWriter(capacity: 512)
    w.object { o in
      o.field("snapshot", Self.formatVersion)
      o.field("reducer", State.reducerVersion)
      o.field("seq", checkpoint.seq)
      o.field("line", checkpoint.line)
      o.field("offset", checkpoint.offset)
      o.field("recordLength", checkpoint.recordLength)
      o.field("recordCRC", Self.hex(checkpoint.recordCRC))
      o.field("stateDigest", stateDigest)
      o.field("bodyLength", body.count)
      o.field("bodySHA256", ByteEncoding.hex(Digest.sha256(body)))
    }
    return (w.bytes + [0x0A] + body + [0x0A], stateDigest)
  }

  /// Reads a snapshot file's bytes, checking its version, its body's hash, and that the state
  /// read back has the digest the header recorded.
  public init(decoding bytes: [UInt8]) throws(Problem) {
    guard let newline = bytes.firstIndex(of: 0x0A) else { throw Problem(description: "no header") }
    let header: FieldReader
    do {
      header = try FieldReader(try JSONParser.parse(Array(bytes[..<newline])))
    } catch {
      throw Problem(description: "the header is not JSON: \(error)")
    }
    do {
      let version = try header.int("snapshot")
      guard version == Self.formatVersion else {
        throw Problem(
          description: "format version \(version); this susi reads version \(Self.formatVersion)")
      }
      let reducer = try header.int("reducer")
      guard reducer == State.reducerVersion else {
        throw Problem(
          description:
            "it was made by another version of susi (reducer \(reducer), this one is \(State.reducerVersion))"
        )
      }
      let bodyLength = try header.int("bodyLength")
      let bodyStart = newline + 1
      guard bodyLength >= 0, bytes.count == bodyStart + bodyLength + 1, bytes.last == 0x0A else {
        throw Problem(description: "the file is not as long as its header says (cut short?)")
      }
      let body = Array(bytes[bodyStart..<(bodyStart + bodyLength)])
      guard ByteEncoding.hex(Digest.sha256(body)) == (try header.string("bodySHA256")) else {
        throw Problem(description: "its body does not match its checksum")
      }
      guard let crc = UInt32(try header.string("recordCRC"), radix: 16) else {
        throw Problem(description: "recordCRC is not hex")
      }
      checkpoint = EventLogCheckpoint(
        seq: try header.int("seq"), line: try header.int("line"), offset: try header.int("offset"),
        recordLength: try header.int("recordLength"), recordCRC: crc)
      recovered = try Self.recovered(
        from: FieldReader(try JSONParser.parse(body, maximumDepth: Nesting.readable)))
      guard recovered.lastSeq == checkpoint.seq else {
        throw Problem(
          description: "its body covers seq \(recovered.lastSeq), not \(checkpoint.seq)")
      }
      guard Self.digest(recovered.state) == (try header.string("stateDigest")) else {
        throw Problem(description: "the state read back does not have the recorded digest")
      }
    } catch let problem as Problem {
      throw problem
    } catch {
      throw Problem(description: "\(error)")
    }
  }

  /// The SHA-256 of the state's canonical JSON, in hex (what `susi replay --digest` prints).
  public static func digest(_ state: State) -> String {
    ByteEncoding.hex(Digest.sha256(state.canonicalJSON()))
  }

  /// The body: the bookkeeping, then the state in snapshot form. Equal books give equal bytes.
  public static func body(of recovered: Recovered) -> [UInt8] {
    var w = JSONWriter(capacity: 1 << 16)
    w.object { o in
      o.field("lastSeq", recovered.lastSeq)
      o.field("lastAt", recovered.lastAt?.rfc3339)
      o.field("ledger") { w in
        w.array(recovered.ledger.owed.sorted { $0.key < $1.key }) { w, entry in
          w.object { o in
            o.field("seq", entry.key)
            o.field("results", entry.value.results)
            o.field("id", entry.value.id)
          }
        }
      }
      o.field("idempotencyKeys") { w in
        w.array(recovered.idempotencyKeys.entries) { w, entry in
          w.object { o in
            o.field("key", entry.key)
            o.field("seq", entry.seq)
            o.field("at", entry.at.rfc3339)
          }
        }
      }
      o.field("state") { recovered.state.writeSnapshot(to: &$0) }
    }
    return w.bytes
  }

  static func recovered(from r: FieldReader) throws(JSONShapeError) -> Recovered {
    var recovered = Recovered(state: try State(snapshot: try r.object("state")))
    recovered.lastSeq = try r.int("lastSeq")
    if let at = try r.optionalString("lastAt") {
      guard let parsed = Timestamp(rfc3339: at) else {
        throw JSONShapeError(path: "lastAt", reason: "expected an RFC 3339 date-time")
      }
      recovered.lastAt = parsed
    }
    for entry in try r.objects("ledger") {
      recovered.ledger.owed[try entry.int("seq")] = (
        entry.optionalValue("id"), try entry.int("results")
      )
    }
    for entry in try r.objects("idempotencyKeys") {
      let at = try entry.string("at")
      guard let time = Timestamp(rfc3339: at) else {
        throw JSONShapeError(path: "idempotencyKeys.at", reason: "expected an RFC 3339 date-time")
      }
      recovered.idempotencyKeys.restore(
        key: try entry.string("key"), seq: try entry.int("seq"), at: time)
    }
    return recovered
  }

  static func hex(_ crc: UInt32) -> String {
    let digits = String(crc, radix: 16)
    return String(repeating: "0", count: 8 - digits.count) + digits
  }
}
