import Foundation
import SusiCore
import SusiEventLog
import SusiHTTPTesting
import SusiJSON
import SusiSamples
import Testing

@testable import SusiStore

/// A long snapshot body is read with its transcript cut into runs, each run on its own thread,
/// and the checksum checked beside them: the state read must be exactly the one the body read
/// whole gives, whatever the body holds, and a guess about where to cut that was wrong must only
/// cost time.
@Suite struct SnapshotBodyRunsTests {
  /// The book replaying `count` realistic events gives.
  private func realisticBook(count: Int) throws -> Recovered {
    let folder = TestScratch.root.appendingPathComponent("susi-runs-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let log = folder + "/events.jsonl"
    let writer = try EventLogWriter(path: log, options: .init(fsync: .never))
    for seq in 1...count { try writer.append(RealisticEvents.event(seq: seq).encoded()) }
    try writer.close()
    var book = Recovered()
    try LogReplay.run(path: log, into: &book)
    return book
  }

  /// The body read whole, on one thread: the reference.
  private func wholeRead(_ body: [UInt8]) throws -> Recovered {
    try Snapshot.readBody(body[...])
  }

  /// The body read in runs; nil when it was not cut, `.success(nil)`-like `nil` body when a
  /// run or the rest did not read.
  private func readInRuns(_ body: [UInt8]) -> (ran: Bool, read: Recovered?)? {
    guard let (ran, read) = SnapshotBodyRuns.read(body[...], alongside: { true }) else {
      return nil
    }
    return (ran, try? read?.get())
  }

  @Test func aLongRealisticBodyReadInRunsIsTheBodyReadWhole() throws {
    let book = try realisticBook(count: 4_000)
    let body = Snapshot.body(of: book)
    #expect(body.count >= SnapshotBodyRuns.shortest)
    let read = try #require(readInRuns(body))
    #expect(read.ran)
    let runs = try #require(read.read)
    #expect(runs.state == book.state)
    #expect(runs.state == (try wholeRead(body)).state)
    #expect(runs.lastSeq == book.lastSeq && runs.lastAt == book.lastAt)
    #expect(Snapshot.body(of: runs) == body)
  }

  @Test func theRunsAreWholeEntriesThatTileTheTranscript() throws {
    let book = try realisticBook(count: 4_000)
    let body = Snapshot.body(of: book)
    for parts in [2, 3, 4, 8, 16, 64] {
      let found = body.withUnsafeBytes { State.transcriptRuns(in: $0, parts: parts) }
      let (array, runs) = try #require(found)
      #expect(body[array.lowerBound] == UInt8(ascii: "["))
      #expect(body[array.upperBound - 1] == UInt8(ascii: "]"))
      #expect(runs.count > 1 && runs.count <= parts)
      #expect(runs.first?.lowerBound == array.lowerBound + 1)
      #expect(runs.last?.upperBound == array.upperBound - 1)
      for (run, next) in zip(runs, runs.dropFirst()) {
        #expect(next.lowerBound == run.upperBound + 1)
        #expect(body[run.upperBound] == UInt8(ascii: ","))
      }
      // Read one after the other, the runs are the transcript.
      var entries: [ChatEntry] = []
      for run in runs {
        entries += try body.withUnsafeBytes {
          try State.readTranscriptRun(
            UnsafeRawBufferPointer(rebasing: $0[run]), depth: 3, maximumDepth: Nesting.readable)
        }
      }
      #expect(entries == book.state.transcript)
    }
  }

  @Test func aShortBodyOrOneWithoutATranscriptIsNotCut() throws {
    let short = Snapshot.body(of: try realisticBook(count: 50))
    #expect(short.count < SnapshotBodyRuns.shortest)
    #expect(readInRuns(short) == nil)
    var book = try realisticBook(count: 4_000)
    book.state.transcript = []
    #expect(readInRuns(Snapshot.body(of: book)) == nil)
  }

  @Test func aCutGuessedInsideAnEntryFallsBackToTheWholeRead() throws {
    // Table cells holding objects that end the way an entry ends: the guess for a cut finds
    // them, a run then does not read as whole entries, and the body is read whole.
    var book = try realisticBook(count: 4_000)
    let cell: JSON = .array([.object(["speaker": .string("user")]), .object(["x": .int(1)])])
    let table = AnswerAction.table(columns: [.init(key: "a", header: "A")], rows: [[cell]])
    for index in book.state.transcript.indices where book.state.transcript[index].speaker == .susi {
      book.state.transcript[index].answers = [table]
    }
    let body = Snapshot.body(of: book)
    #expect(String(decoding: body, as: UTF8.self).contains(#"{"speaker":"user"},{"x":1}"#))
    let read = try #require(readInRuns(body))
    #expect(read.ran)
    #expect(read.read == nil)
    // What a start does: the whole read, the same state.
    let (_, found) = Snapshot.readBody(body[...], alongside: { 0 })
    #expect(found == nil)
    #expect((try wholeRead(body)).state == book.state)
  }

  @Test func aTranscriptMemberFoundOutsideTheStatesOwnFallsBackToTheWholeRead() throws {
    let book = try realisticBook(count: 4_000)
    let text = String(decoding: Snapshot.body(of: book), as: UTF8.self)
    // A member the readers ignore, before the state's own transcript, that holds one.
    let changed = Array(
      text.replacingOccurrences(
        of: #""state":{"#, with: #""state":{"extra":{"a":0,"transcript":[{"seq":1}]},"#
      )
      .utf8)
    #expect(changed.count > text.utf8.count)
    let read = try #require(readInRuns(changed))
    #expect(read.read == nil)
    #expect((try wholeRead(changed)).state == book.state)
  }

  @Test func aLongSnapshotIsStillCheckedByItsHashAndReadToItsBook() throws {
    let book = try realisticBook(count: 4_000)
    let checkpoint = EventLogCheckpoint(
      seq: book.lastSeq, lineNumber: book.lastSeq, offset: 0, line: Array("{}".utf8))
    let good = try Snapshot(checkpoint: checkpoint, recovered: book).checkedEncoding().bytes
    let decoded = try Snapshot(decoding: good)
    #expect(decoded.recovered.state == book.state)
    #expect(decoded.checkpoint.seq == book.lastSeq)
    // A change in the transcript that keeps the body readable, and one that does not: both are
    // the checksum's to report.
    let newline = try #require(good.firstIndex(of: 0x0A))
    let text = String(decoding: good[(newline + 1)...], as: UTF8.self)
    let query = try #require(text.range(of: #""query":""#))
    let at = newline + 1 + text.utf8.distance(from: text.startIndex, to: query.upperBound)
    for byte in [UInt8(ascii: "Q"), UInt8(ascii: "\"")] {
      var damaged = good
      damaged[at] = byte
      #expect(throws: Snapshot.Problem.self) { try Snapshot(decoding: damaged) }
      do {
        _ = try Snapshot(decoding: damaged)
      } catch {
        #expect(error.description == "it does not match its checksum")
      }
    }
  }
}
