import Foundation
import SusiCore
import SusiCrypto
import SusiEventLog
import SusiHTTPTesting
import SusiJSON
import SusiSamples
import Testing

@testable import SusiStore

/// The snapshot format: a start checks a snapshot by its hash, so the writer checks that the
/// body reads back as the book it was made from; the pull reader reads what the tree reader
/// reads; format 1 files are still read, with the check they were written without.
@Suite struct SnapshotFormatTests {
  /// A log of `count` realistic events in a fresh folder, and the book replaying it gives.
  private func realisticLog(count: Int) throws -> (folder: String, log: String, book: Recovered) {
    let folder = TestScratch.root.appendingPathComponent("susi-format-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let log = folder + "/events.jsonl"
    let writer = try EventLogWriter(path: log, options: .init(fsync: .never))
    for seq in 1...count { try writer.append(RealisticEvents.event(seq: seq).encoded()) }
    try writer.close()
    var book = Recovered()
    try LogReplay.run(path: log, into: &book)
    return (folder, log, book)
  }

  private func checkpoint(of log: String, seq: Int) throws -> EventLogCheckpoint {
    let size = try FileManager.default.attributesOfItem(atPath: log)[.size] as? Int ?? 0
    return try EventLogCheckpoint.ofRecord(endingAt: size, inLogAt: log, seq: seq, line: seq)
  }

  /// The body as a tree read, the reference.
  private func treeRead(_ body: [UInt8]) throws -> Recovered {
    try Snapshot.recovered(from: FieldReader(try JSONParser.parse(body)))
  }

  @Test func thePullReaderReadsARealisticBodyAsTheTreeReaderDoes() throws {
    let (folder, _, book) = try realisticLog(count: 3_000)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    #expect(book.state.transcript.contains { !$0.answers.isEmpty })
    let body = Snapshot.body(of: book)
    // Read without falling back to the tree: the fast path is taken.
    let pulled = try body.withUnsafeBytes { bytes in
      var reader = JSONReader(bytes, maximumDepth: Nesting.readable)
      return try Snapshot.readBodyWithPullReader(&reader)
    }
    let tree = try treeRead(body)
    #expect(pulled.state == tree.state)
    #expect(pulled.state == book.state)
    #expect(Snapshot.body(of: pulled) == body)
    #expect(Snapshot.digest(pulled.state) == Snapshot.digest(book.state))
  }

  @Test func aBodyNotAsTheWriterWritesItIsReadAsATree() throws {
    let (folder, _, book) = try realisticLog(count: 300)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let text = String(decoding: Snapshot.body(of: book), as: UTF8.self)
    // A member the writer never writes, and one written with an escape: both are for the tree
    // reader, which ignores the first and reads the second as the same key.
    for changed in [
      text.replacingOccurrences(of: #"{"answers":"#, with: #"{"extra":1,"answers":"#),
      text.replacingOccurrences(of: #","speaker":"#, with: #","speak\u0065r":"#),
    ] {
      let body = Array(changed.utf8)
      #expect(body != Snapshot.body(of: book))
      let read = try Snapshot.readBody(body[...])
      #expect(read.state == (try treeRead(body)).state)
      #expect(read.state == book.state)
    }
    // A repeated key is refused by both, with the tree reader's error.
    let repeated = Array(
      text.replacingOccurrences(
        of: #","speaker":"user""#, with: #","speaker":"user","speaker":"susi""#
      )
      .utf8)
    #expect(throws: (any Error).self) { try Snapshot.readBody(repeated[...]) }
  }

  @Test func aSnapshotWhoseBookDoesNotSurviveItsBodyIsNotWritten() throws {
    let (folder, log, book) = try realisticLog(count: 30)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    // A user's line with answers: the body holds answers for SUSI's lines only, so this one
    // would read back without them (and with the same state digest, which leaves them out too).
    var changed = book
    changed.state.transcript.append(
      ChatEntry(
        seq: book.lastSeq, at: RealisticEvents.start, speaker: .user, query: "hi",
        answers: [.answer(expression: "lost", language: nil, mood: nil)]))
    let files = SnapshotFiles(logPath: log)
    let snapshot = Snapshot(
      checkpoint: try checkpoint(of: log, seq: book.lastSeq), recovered: changed)
    #expect(throws: SnapshotFiles.Failure.self) { try files.write(snapshot) }
    #expect(files.all().isEmpty)
    do {
      try files.write(snapshot)
    } catch {
      #expect(error.description.contains("does not read back"))
    }
    // The book as replay made it is written.
    try files.write(
      Snapshot(checkpoint: try checkpoint(of: log, seq: book.lastSeq), recovered: book))
    #expect(files.newestValid().snapshot?.recovered.state == book.state)
  }

  @Test func aChangeAnywhereInASnapshotIsFoundByItsHash() throws {
    let (folder, log, book) = try realisticLog(count: 40)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let files = SnapshotFiles(logPath: log)
    try files.write(
      Snapshot(checkpoint: try checkpoint(of: log, seq: book.lastSeq), recovered: book))
    let path = files.path(forSeq: book.lastSeq)
    let good = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    let newline = try #require(good.firstIndex(of: 0x0A))
    // Every byte of the header (whose `line` and `stateDigest` nothing else checks) and a
    // spread of the body's, changed to a digit or a letter that keeps the JSON valid where it can.
    let positions =
      Array(0..<newline) + Array(stride(from: newline + 1, to: good.count - 1, by: 97))
    for position in positions {
      var damaged = good
      damaged[position] =
        damaged[position] == UInt8(ascii: "1") ? UInt8(ascii: "2") : UInt8(ascii: "1")
      try Data(damaged).write(to: URL(fileURLWithPath: path))
      let found = files.newestValid()
      #expect(found.snapshot == nil, "a change at byte \(position) went unnoticed")
      #expect(found.warnings.count == 1)
    }
    try Data(good).write(to: URL(fileURLWithPath: path))
    #expect(files.newestValid().snapshot != nil)
  }

  /// The bytes of `snapshot` in format 1, as an earlier version of susi wrote them.
  private func formatOne(_ snapshot: Snapshot, stateDigest: String? = nil) -> [UInt8] {
    let body = Snapshot.body(of: snapshot.recovered)
    let c = snapshot.checkpoint
    let crc = String(c.recordCRC, radix: 16)
    let header =
      #"{"snapshot":1,"reducer":\#(State.reducerVersion),"seq":\#(c.seq),"line":\#(c.line),"#
      + #""offset":\#(c.offset),"recordLength":\#(c.recordLength),"#
      + #""recordCRC":"\#(String(repeating: "0", count: 8 - crc.count) + crc)","#
      + #""stateDigest":"\#(stateDigest ?? Snapshot.digest(snapshot.recovered.state))","#
      + #""bodyLength":\#(body.count),"bodySHA256":"\#(ByteEncoding.hex(Digest.sha256(body)))"}"#
    return Array(header.utf8) + [0x0A] + body + [0x0A]
  }

  @Test func aFormatOneSnapshotIsStillReadWithItsStateChecked() throws {
    let (folder, log, book) = try realisticLog(count: 200)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let files = SnapshotFiles(logPath: log)
    let snapshot = Snapshot(checkpoint: try checkpoint(of: log, seq: book.lastSeq), recovered: book)
    let path = files.path(forSeq: book.lastSeq)
    try Data(formatOne(snapshot)).write(to: URL(fileURLWithPath: path))
    let loaded = try files.load(path).get()
    #expect(loaded.recovered.state == book.state)
    #expect(loaded.checkpoint == snapshot.checkpoint)

    // Format 1 did not hash its header: a wrong state digest is found by reading the state back.
    let otherDigest = String(repeating: "0", count: 64)
    try Data(formatOne(snapshot, stateDigest: otherDigest)).write(to: URL(fileURLWithPath: path))
    let found = files.newestValid()
    #expect(found.snapshot == nil)
    #expect(found.warnings.first?.contains("does not have the recorded digest") == true)
  }
}
