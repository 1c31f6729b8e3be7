public import SusiCore
import SusiCrypto
public import SusiEventLog
import SusiJSON

/// Everything replay had folded from a log up to one record, saved so a start can skip that part
/// of the log: the state, the result ledger, the idempotency keys, and the checkpoint naming the
/// record (seq, line, byte offset, CRC) so it is only ever applied to the log it came from.
///
/// A file holds two lines (the format is described in Events/README.md):
/// a header `{"snapshot":2,"reducer":…,"seq":…,"line":…,"offset":…,"recordLength":…,
/// "recordCRC":"…","stateDigest":"…","bodyLength":…,"sha256":"…"}` and the body, one JSON object.
/// `sha256` covers the header before it and the body, so a start checks a snapshot by hashing its
/// bytes; that its body reads back as exactly the book it was made from is checked once, when it
/// is written (`checkedEncoding`), not at every start.
public struct Snapshot: Sendable {
  /// The format version written. Version 1 (the body's own SHA-256 in `bodySHA256`, the header
  /// not covered) is still read, with the check it was written without: its state is read back
  /// and must have the recorded digest.
  public static let formatVersion = 2

  public var checkpoint: EventLogCheckpoint
  public var recovered: Recovered

  public init(checkpoint: EventLogCheckpoint, recovered: Recovered) {
    self.checkpoint = checkpoint
    self.recovered = recovered
  }

  /// Why a snapshot file cannot be used (or written).
  public struct Problem: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(description: String) { self.description = description }
  }

  /// The file's bytes: header line and body line (not checked: see `checkedEncoding`).
  public func encoded() -> [UInt8] { encodedWithDigest().bytes }

  /// The file's bytes, and the state digest its header records (not checked: see
  /// `checkedEncoding`).
  public func encodedWithDigest() -> (bytes: [UInt8], stateDigest: String) {
    let stateDigest = Self.digest(recovered.state)
    return (encoded(body: Self.body(of: recovered), stateDigest: stateDigest), stateDigest)
  }

  /// The file's bytes and the state digest its header records, once the body is known to read
  /// back as this book: the book read from it is equal to this one (`==`) and writes the same
  /// body again, byte for byte, so it also has the same state digest (`State.canonicalJSON` is
  /// made from the same fields the body holds). What a start reads is then only checked by its
  /// hash. Throws, and nothing should be written, when the book does not survive its own body.
  public func checkedEncoding() throws(Problem) -> (bytes: [UInt8], stateDigest: String) {
    let body = Self.body(of: recovered)
    let readBack: Recovered
    do {
      readBack = try Self.readBody(body[...])
    } catch {
      throw Problem(description: "its body does not read back: \(error)")
    }
    guard readBack.lastSeq == recovered.lastSeq, readBack.state == recovered.state,
      Self.body(of: readBack) == body
    else {
      throw Problem(description: "its body does not read back as the state it was made from")
    }
    let stateDigest = Self.digest(recovered.state)
    return (encoded(body: body, stateDigest: stateDigest), stateDigest)
  }

  /// The header (ending in its hash), then `body`.
  func encoded(body: [UInt8], stateDigest: String) -> [UInt8] {
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
    }
    // The header so far, without its closing brace, is what the hash covers (with the body).
    var bytes = w.bytes
    bytes.removeLast()
    var hasher = SHA256Hasher()
    hasher.update(bytes)
    hasher.update(body)
    bytes += Self.hashMember + Array(ByteEncoding.hex(hasher.finalize()).utf8) + Array("\"}".utf8)
    bytes.reserveCapacity(bytes.count + body.count + 2)
    bytes.append(0x0A)
    bytes += body
    bytes.append(0x0A)
    return bytes
  }

  /// How the hash member starts: the header's last member.
  static let hashMember = Array(#","sha256":""#.utf8)
  /// The length of the header's end from `hashMember` on: it, 64 hex digits, `"}`.
  static let hashEnd = hashMember.count + 64 + 2

  /// Reads a snapshot file's bytes, checking its version, that it was made by this reducer, its
  /// length and its hash (format 1: its body's hash, and that the state read back has the digest
  /// the header recorded).
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
      guard version == Self.formatVersion || version == 1 else {
        throw Problem(
          description:
            "format version \(version); this susi reads versions 1 to \(Self.formatVersion)")
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
      let body = bytes[bodyStart..<(bodyStart + bodyLength)]
      if version == 1 {
        guard ByteEncoding.hex(Digest.sha256(body)) == (try header.string("bodySHA256")) else {
          throw Problem(description: "its body does not match its checksum")
        }
      } else {
        let hashed = newline - Self.hashEnd
        guard hashed > 0,
          bytes[hashed..<(hashed + Self.hashMember.count)].elementsEqual(Self.hashMember)
        else {
          throw Problem(description: "its header does not end in its checksum")
        }
        var hasher = SHA256Hasher()
        hasher.update(bytes[..<hashed])
        hasher.update(body)
        let recorded = bytes[(hashed + Self.hashMember.count)..<(newline - 2)]
        guard Array(ByteEncoding.hex(hasher.finalize()).utf8).elementsEqual(recorded) else {
          throw Problem(description: "it does not match its checksum")
        }
      }
      guard let crc = UInt32(try header.string("recordCRC"), radix: 16) else {
        throw Problem(description: "recordCRC is not hex")
      }
      checkpoint = EventLogCheckpoint(
        seq: try header.int("seq"), line: try header.int("line"), offset: try header.int("offset"),
        recordLength: try header.int("recordLength"), recordCRC: crc)
      recovered = try Self.readBody(body)
      guard recovered.lastSeq == checkpoint.seq else {
        throw Problem(
          description: "its body covers seq \(recovered.lastSeq), not \(checkpoint.seq)")
      }
      if version == 1, Self.digest(recovered.state) != (try header.string("stateDigest")) {
        throw Problem(description: "the state read back does not have the recorded digest")
      }
    } catch let problem as Problem {
      throw problem
    } catch {
      throw Problem(description: "\(error)")
    }
  }

  /// Reads a body (see `body(of:)`): with a pull reader (the state through
  /// `State.readSnapshot`), or, when the body is not exactly what `body(of:)` writes, as a tree,
  /// whose result and errors are the reference.
  static func readBody(_ body: ArraySlice<UInt8>) throws -> Recovered {
    try body.withUnsafeBytes { bytes in
      var reader = JSONReader(bytes, maximumDepth: Nesting.readable)
      if let read = try? readBodyWithPullReader(&reader) { return read }
      return try recovered(
        from: FieldReader(try JSONParser.parse(bytes, maximumDepth: Nesting.readable)))
    }
  }

  /// The body read with a pull reader; throws when it must be read as a tree.
  static func readBodyWithPullReader(_ r: inout JSONReader) throws -> Recovered {
    let (state, others) = try r.readObject(pulling: "state") { try State.readSnapshot(&$0) }
    try r.finish()
    return try recovered(from: FieldReader(JSONObject(others)), state: state)
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

  /// The book in the body `r`; with `state`, that is its state (read already), and `r` need not
  /// hold one.
  static func recovered(from r: FieldReader, state: State? = nil) throws(JSONShapeError)
    -> Recovered
  {
    var recovered: Recovered
    if let state {
      recovered = Recovered(state: state)
    } else {
      recovered = Recovered(state: try State(snapshot: try r.object("state")))
    }
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
