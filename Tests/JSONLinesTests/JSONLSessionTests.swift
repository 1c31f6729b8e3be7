import SusiClock
import SusiCore
import SusiJSON
import SusiJSONLines
import SusiStore
import Synchronization
import Testing

@Suite struct JSONLSessionTests {
  /// One malformed line of each kind, cycling with `i`; every other one carries an id.
  static func malformedLine(_ i: Int) -> [JSONLGeneratedInput.Piece] {
    let id = i.isMultiple(of: 2) ? ",\"id\":\(i)" : ""
    func text(_ text: String) -> [JSONLGeneratedInput.Piece] { [.bytes(Array(text.utf8))] }
    switch i % 12 {
    case 0:  // the object is never closed
      return text("{\"type\":\"sendMessage\",\"payload\":{\"query\":\"hi\"}\(id)")
    case 1: return text("[\"sendMessage\",\(i)]")
    case 2: return text("{\"type\":\"sendMassage\(i)\",\"payload\":{}\(id)}")
    case 3:
      return text(
        "{\"type\":\"messageReceived\",\"payload\":{\"query\":\"q\",\"answers\":[]}\(id)}")
    case 4:
      return text("{\"type\":\"submitRating\",\"payload\":{\"group\":\"g\",\"skill\":\"s\"}\(id)}")
    case 5:
      return text(
        "{\"type\":\"submitRating\",\"payload\":{\"group\":\"g\",\"skill\":\"s\",\"stars\":\"four\"}\(id)}"
      )
    case 6:
      return text("{\"type\":\"sendMessage\",\"payload\":{\"query\":\"hi\",\"qeury\":\"hi\"}\(id)}")
    case 7: return text("{\"type\":\"logout\",\"origin\":\"runner\"\(id)}")
    case 8: return text("{\"payload\":{}\(id)}")
    case 9:
      // Just over the 1 MiB limit, and otherwise a valid search.
      let head = Array("{\"type\":\"search\",\"payload\":{\"query\":\"".utf8)
      let tail = Array("\"}\(id)}".utf8)
      let limit = JSONLinesOptions.defaultMaximumLineLength
      return [
        .bytes(head), .run(UInt8(ascii: "x"), count: limit + 1 - head.count - tail.count),
        .bytes(tail),
      ]
    case 10:
      return [
        .bytes(
          Array("{\"type\":\"search\",\"payload\":{\"query\":\"".utf8) + [0xc0, 0xaf]
            + Array("\"}\(id)}".utf8))
      ]
    default: return text("\(i)")
    }
  }

  static let expectedCodes: [JSONLinesError.Code] = [
    .invalidJSON, .notAnObject, .unknownType, .resultType, .invalidPayload, .invalidPayload,
    .invalidPayload, .invalidRequest, .invalidRequest, .lineTooLong, .invalidUTF8, .notAnObject,
  ]

  @Test func answersAThousandMalformedLinesWithAThousandErrorsAndNothingElse() async throws {
    let harness = JSONLHarness()
    var input: [JSONLGeneratedInput.Piece] = []
    for i in 0..<1000 {
      input += Self.malformedLine(i)
      input.append(.bytes(i.isMultiple(of: 3) ? [0x0d, 0x0a] : [0x0a]))
    }
    let summary = await harness.session(JSONLGeneratedInput(input)).run()

    let lines = try harness.output.lines()
    #expect(lines.count == 1000)
    for (i, line) in lines.enumerated() {
      let error = try #require(line["error"], "line \(i) is not an error: \(line)")
      #expect(
        error["code"]?.string == Self.expectedCodes[i % 12].rawValue, "line \(i + 1): \(line)")
      #expect(error["line"] == .int(i + 1))
      #expect(error["message"]?.string?.isEmpty == false)
      let hasReadableId = i.isMultiple(of: 2) && ![0, 1, 9, 10, 11].contains(i % 12)
      #expect(line["id"] == (hasReadableId ? .int(i) : .null), "line \(i + 1): \(line)")
    }
    #expect(harness.sink.lines.isEmpty)
    #expect(await harness.store.state == State())
    #expect(await harness.store.lastSeq == 0)
    #expect(summary.refused == 1000)
    #expect(summary.accepted == 0)
    #expect(summary.succeeded)
  }

  /// A valid line that the reducer handles without the network, cycling with `i`.
  static func validLine(_ i: Int) -> String {
    switch i % 5 {
    case 0: #"{"type":"sendMessage","payload":{"query":"question \#(i)"},"id":\#(i)}"#
    case 1: #"{"type":"setServer","payload":{"url":"not a url \#(i)"},"id":\#(i)}"#
    case 2:
      #"{"type":"submitRating","payload":{"group":"Knowledge","skill":"s","stars":9},"id":\#(i)}"#
    case 3: #"{"type":"cancelRequest","payload":{"seq":\#(100_000 + i)},"id":\#(i)}"#
    default: #"{"type":"logout","id":\#(i)}"#
    }
  }

  @Test func answersInterleavedValidAndInvalidLinesInInputOrder() async throws {
    let harness = JSONLHarness()
    var text = ""
    for i in 0..<1000 {
      if i.isMultiple(of: 2) {
        text += Self.validLine(i) + "\n"
      } else {
        text += #"{"type":"sendMessage","payload":{"query":7},"id":\#(i)}"# + "\n"
      }
    }
    let summary = await harness.session(JSONLMemoryInput(text, chunkSize: 1000)).run()
    let transcript = try harness.transcript()

    // Each input line's own answer (its event or its error), in input order.
    let answers = transcript.lines.filter { $0["error"] != nil || $0["origin"] == "jsonl" }
    #expect(answers.map { $0["id"] } == (0..<1000).map { JSON.int($0) })
    for (i, answer) in answers.enumerated() {
      if i.isMultiple(of: 2) {
        #expect(answer["error"] == nil, "line \(i + 1) should be accepted: \(answer)")
      } else {
        #expect(answer["error"]?["code"] == "invalid_payload")
      }
    }
    #expect(transcript.accepted.count == 500)
    #expect(transcript.errors.count == 500)
    #expect(summary.accepted == 500)
    #expect(summary.refused == 500)

    // Every logged event is written, as its exact log line, in seq order.
    let eventLines = harness.output.rawLines.filter { line in
      (try? JSONParser.parse(line))?["seq"] != nil
    }
    #expect(eventLines == harness.sink.lines)
    #expect(
      transcript.events.map { $0["seq"] } == (1...harness.sink.lines.count).map { JSON.int($0) })

    // Each result comes after its cause and carries the id of the line that caused it.
    var idsBySeq: [Int: JSON] = [:]
    for event in transcript.events {
      let seq = try #require(event["seq"]?.int)
      if let cause = event["cause"]?.int {
        let causeId = try #require(idsBySeq[cause], "result \(seq) came before its cause \(cause)")
        #expect(event["id"] == causeId)
        #expect(event["origin"] == "runner")
      }
      idsBySeq[seq] = event["id"] ?? .null
    }
    // 500 intents, each answered by exactly one result.
    #expect(transcript.events.count == 1000)
  }

  @Test func refusesATenMebibyteLineAndKeepsServing() async throws {
    let harness = JSONLHarness()
    let input = JSONLGeneratedInput(
      prefix: #"{"id":1,"type":"sendMessage","payload":{"query":""#, fill: UInt8(ascii: "a"),
      count: 10 << 20,
      suffix: "\"}}\n" + #"{"type":"sendMessage","payload":{"query":"still there?"},"id":2}"# + "\n"
    )
    let summary = await harness.session(input).run()
    let transcript = try harness.transcript()

    #expect(transcript.errors.count == 1)
    #expect(transcript.errors.first?["error"]?["code"] == "line_too_long")
    #expect(transcript.errors.first?["id"] == .null)
    #expect(transcript.errors.first?["error"]?["line"] == 1)
    #expect(transcript.accepted.map { $0["id"] } == [2])
    #expect(transcript.lines.first?["error"] != nil)
    let reply = transcript.events.first { $0["type"] == "messageReceived" }
    #expect(reply?["id"] == 2)
    #expect(reply?["payload"]?["query"] == "still there?")
    #expect(summary.refused == 1)
    #expect(summary.accepted == 1)
  }

  @Test func printsTheCurrentStateFirstWhenAsked() async throws {
    var recovered = Recovered()
    recovered.apply(
      Event(
        seq: 1, at: Timestamp(milliseconds: 1_795_341_600_000), origin: .cli,
        action: .serverChanged(.init(url: "http://127.0.0.1:9"))))
    let harness = JSONLHarness(recovered: recovered)
    _ = await harness.run(
      #"{"type":"logout","id":"x"}"# + "\n", JSONLinesOptions(drainTimeout: 120, replayFirst: true))
    let lines = try harness.output.lines()

    let first = try #require(lines.first)
    #expect(first.object?.keys == ["state", "seq"])
    #expect(first["seq"] == 1)
    #expect(first["state"] == recovered.state.json)
    #expect(first["state"]?["server"] == "http://127.0.0.1:9")
    #expect(lines.dropFirst().first?["seq"] == 2)
    #expect(lines.dropFirst().first?["id"] == "x")
  }

  @Test func writesNoStateLineUnlessAsked() async throws {
    let harness = JSONLHarness()
    _ = await harness.run(#"{"type":"logout"}"# + "\n")
    #expect(try harness.output.lines().allSatisfy { $0["state"] == nil })
  }

  @Test func waitsAtTheEndOfInputForRequestsInFlight() async throws {
    let harness = JSONLHarness(holding: true)
    let session = harness.session(
      JSONLMemoryInput(#"{"type":"sendMessage","payload":{"query":"slow"},"id":"q"}"# + "\n"))
    async let summary = session.run()
    await harness.output.waitForLines(1)
    // The input has ended and the session has answered the line; it must still be waiting.
    #expect(harness.runner.heldCount == 1)
    harness.runner.release()
    let finished = await summary
    #expect(finished.drained)
    let transcript = try harness.transcript()
    #expect(transcript.events.map { $0["type"] } == ["sendMessage", "messageReceived"])
    #expect(transcript.events.last?["id"] == "q")
    #expect(harness.sink.lines.count == 2)
  }

  @Test func stopsTakingInputWhileTheRunnerIsFull() async throws {
    let harness = JSONLHarness(holding: true, inFlightLimit: 3)
    var text = ""
    for i in 1...10 { text += #"{"type":"sendMessage","payload":{"query":"q\#(i)"}}"# + "\n" }
    let session = harness.session(JSONLMemoryInput(text))
    async let summary = session.run()
    await harness.output.waitForLines(3)
    harness.runner.release()
    let finished = await summary
    #expect(finished.accepted == 10)
    #expect(finished.drained)
    // At no point in the log did more than three requests owe their results.
    var owed = 0
    var most = 0
    for event in try harness.loggedEvents() {
      owed += event.cause == nil ? 1 : -1
      most = max(most, owed)
    }
    #expect(most == 3)
    #expect(harness.sink.lines.count == 20)
  }

  @Test func stopsWaitingAfterTheDrainTimeout() async throws {
    let harness = JSONLHarness(holding: true)
    let summary = await harness.run(
      #"{"type":"sendMessage","payload":{"query":"never answered"}}"# + "\n",
      JSONLinesOptions(drainTimeout: 0.05))
    #expect(!summary.drained)
    #expect(try harness.transcript().events.map { $0["type"] } == ["sendMessage"])
  }

  @Test func doesNotWaitWithNoWait() async throws {
    let harness = JSONLHarness(holding: true)
    let summary = await harness.run(
      #"{"type":"sendMessage","payload":{"query":"later"}}"# + "\n",
      JSONLinesOptions(waitForEffects: false))
    #expect(summary.drained)
    #expect(try harness.transcript().events.map { $0["type"] } == ["sendMessage"])
    #expect(harness.runner.heldCount == 1)
  }

  @Test func stopDrainsAndEndsWhileInputIsStillOpen() async throws {
    let harness = JSONLHarness(holding: true)
    let pipe = try JSONLPipe()
    let session = harness.session(FileDescriptorInput(descriptor: pipe.readEnd))
    async let summary = session.run()
    pipe.write(#"{"type":"sendMessage","payload":{"query":"one"},"id":1}"# + "\n")
    await harness.output.waitForLines(1)
    session.stop()
    harness.runner.release()
    let finished = await summary
    #expect(finished.stopped)
    #expect(finished.drained)
    #expect(
      try harness.transcript().events.map { $0["type"] } == ["sendMessage", "messageReceived"])
    pipe.closeWriteEnd()
  }

  @Test func stopsTakingInputWhenNobodyReadsTheOutput() async throws {
    let harness = JSONLHarness()
    let pipe = try JSONLPipe()
    harness.output.failFromNowOn()
    let session = harness.session(FileDescriptorInput(descriptor: pipe.readEnd))
    async let summary = session.run()
    pipe.write(#"{"type":"logout"}"# + "\n")
    let finished = await summary
    #expect(finished.outputFailure != nil)
    #expect(!finished.succeeded)
    pipe.closeWriteEnd()
  }

  @Test func theIntentsOfConsecutiveLinesInOneReadAreLoggedInOneWrite() async throws {
    /// Keeps records in memory and counts the writes of batches.
    final class BatchCountingSink: EventSink {
      let memory = MemoryEventSink()
      let batches = Mutex(0)
      func append(_ record: [UInt8]) throws -> [UInt8] { try memory.append(record) }
      func appendBatch<T>(_ body: (_ appendedByOthers: [[UInt8]], _ batch: AppendBatch) throws -> T)
        throws -> T
      {
        batches.withLock { $0 += 1 }
        let batch = AppendBatch { records in try records.map { try self.memory.append($0) } }
        let result = try body([], batch)
        _ = try batch.write()
        return result
      }
      var batchesAppends: Bool { true }
      func sync() throws {}
      func close() {}
      var history: any EventHistory { memory.history }
    }
    let sink = BatchCountingSink()
    let store = Store(
      sink: sink, runner: JSONLScriptedRunner(),
      clock: ManualTimeSource(millisecondsSince1970: 1_795_341_600_000))
    let output = JSONLCollector()
    // Two intents, a line refused, two more: two batches, the error between them.
    let text =
      [
        #"{"type":"logout","id":1}"#, #"{"type":"logout","id":2}"#, "not json",
        #"{"type":"logout","id":3}"#, #"{"type":"logout","id":4}"#,
      ].joined(separator: "\n") + "\n"
    let session = JSONLinesSession(
      store: store, input: JSONLMemoryInput(text), output: output,
      options: JSONLinesOptions(drainTimeout: 120), diagnostics: { _ in })
    let summary = await session.run()
    #expect(summary.accepted == 4 && summary.refused == 1)
    #expect(sink.batches.withLock { $0 } == 2)
    let lines = try output.lines()
    let accepted = lines.filter { $0["origin"] == "jsonl" }
    #expect(accepted.map { $0["id"] } == [1, 2, 3, 4])
    // Each logout's result follows it at once, in the same batch.
    #expect(accepted.map { $0["seq"] } == [1, 3, 5, 7])
    let error = try #require(lines.firstIndex { $0["error"] != nil })
    let third = try #require(lines.firstIndex { $0["origin"] == "jsonl" && $0["id"] == 3 })
    let second = try #require(lines.firstIndex { $0["origin"] == "jsonl" && $0["id"] == 2 })
    #expect(second < error && error < third, "the error line comes between the two batches")
    await store.close()
  }

  @Test func answersEveryLineWithLogFailedOnceTheLogFails() async throws {
    final class BrokenSink: EventSink {
      func append(_ record: [UInt8]) throws -> [UInt8] {
        throw JSONLinesIOError("no space left on device")
      }
      func sync() throws {}
      func close() {}
      var history: any EventHistory { MemoryEventHistory(MemoryEventSink()) }
    }
    let store = Store(
      sink: BrokenSink(), runner: JSONLScriptedRunner(),
      clock: ManualTimeSource(millisecondsSince1970: 1_795_341_600_000))
    let output = JSONLCollector()
    let session = JSONLinesSession(
      store: store,
      input: JSONLMemoryInput(
        #"{"type":"logout","id":1}"# + "\n" + #"{"type":"logout","id":2}"# + "\n"),
      output: output, diagnostics: { _ in })
    let summary = await session.run()
    let lines = try output.lines()
    #expect(lines.map { $0["id"] } == [1, 2])
    #expect(lines.map { $0["error"]?["code"] } == ["log_failed", "log_failed"])
    #expect(summary.logFailure != nil)
    #expect(await store.state == State())
  }

  @Test func writesEventsFromOtherOriginsAsTheyHappen() async throws {
    let harness = JSONLHarness()
    let pipe = try JSONLPipe()
    let session = harness.session(FileDescriptorInput(descriptor: pipe.readEnd))
    async let summary = session.run()
    pipe.write(#"{"type":"logout","id":1}"# + "\n")
    await harness.output.waitForLines(2)
    try await harness.store.send(.syncSettings, origin: .webhook)
    await harness.output.waitForLines(4)
    pipe.closeWriteEnd()
    _ = await summary
    let events = try harness.transcript().events
    #expect(events.map { $0["origin"] } == ["jsonl", "runner", "webhook", "runner"])
    #expect(events.map { $0["id"] } == [1, 1, nil, nil])
  }
}
