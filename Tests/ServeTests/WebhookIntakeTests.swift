import SusiCore
import SusiHTTPServer
import SusiHTTPTypes
import SusiJSON
import SusiServe
import SusiStore
import Testing

/// `POST /actions` as the intake answers it: the key check read from the header's bytes and the
/// `202 {"seq":N}` written as bytes.
@Suite struct WebhookIntakeTests {
  let message = #"{"type":"sendMessage","payload":{"query":"hello"}}"#

  @Test func everyAcceptedActionIsAnsweredWithExactlyItsSeq() async throws {
    let f = try await WebhookFixture.make()
    // Seqs of one and two digits, across the step from 9 to 10 (the runner's results may be
    // logged between the intents).
    var answered: [Int] = []
    for _ in 2...12 {
      let response = await f.request("POST", "/actions", key: f.adminKey, body: message)
      #expect(response.status == 202)
      guard case .int(let seq) = response.json["seq"] else {
        Issue.record("no seq in \(String(decoding: response.body, as: UTF8.self))")
        continue
      }
      #expect(String(decoding: response.body, as: UTF8.self) == #"{"seq":\#(seq)}"#)
      #expect(response.headers["Content-Type"] == "application/json")
      answered.append(seq)
    }
    let intents = f.sink.lines.compactMap { line -> Int? in
      guard let event = try? Event.decode(line), event.origin == .webhook else { return nil }
      return event.seq
    }
    #expect(answered == intents)
    #expect(answered.first == 2)
    #expect(answered.contains { $0 < 10 } && answered.contains { $0 >= 10 })
  }

  /// Offers `request` to the handler's `respond(to:with:)`: nil when it declined, else its answer.
  private func respondInline(_ f: WebhookFixture, _ request: HTTPRequest) async -> HTTPResponse? {
    let answered = AsyncStream.makeStream(of: HTTPResponse.self)
    let responder = HTTPResponder(executor: globalConcurrentExecutor) { response in
      answered.continuation.yield(response)
      answered.continuation.finish()
    }
    guard f.handler.respond(to: request, with: responder) else { return nil }
    for await response in answered.stream { return response }
    return nil
  }

  private func post(_ target: String, key: String?, body: String) -> HTTPRequest {
    var headers: HTTPHeaders = ["Content-Type": "application/json"]
    if let key { headers.add("Authorization", "Bearer \(key)") }
    return HTTPRequest(method: .post, target: target, headers: headers, body: Array(body.utf8))
  }

  @Test func postActionsWithoutWaitIsAnsweredWithoutATaskAndEverythingElseIsDeclined()
    async throws
  {
    let f = try await WebhookFixture.make()
    #expect(f.handler.respondsInline(to: post("/actions?wait=0", key: nil, body: "")))
    let accepted = await respondInline(f, post("/actions", key: f.adminKey, body: message))
    #expect(accepted?.status == 202)
    let intents = f.sink.lines.compactMap { try? Event.decode($0) }.filter { $0.origin == .webhook }
    #expect(intents.count == 1)
    #expect(
      accepted.map { String(decoding: $0.body, as: UTF8.self) }
        == intents.first.map { #"{"seq":\#($0.seq)}"# })
    let explicit = await respondInline(f, post("/actions?wait=0", key: f.adminKey, body: message))
    #expect(explicit?.status == 202)
    // Refusals are answered on the spot, the same as `handle(_:)` answers them.
    let unknownKey = await respondInline(f, post("/actions", key: "nope", body: message))
    #expect(unknownKey?.status == 401)
    let badBody = await respondInline(f, post("/actions", key: f.adminKey, body: "{"))
    #expect(badBody?.status == 400)
    #expect(
      badBody?.body == (await f.handler.handle(post("/actions", key: f.adminKey, body: "{"))).body)
    // Waiting for results, a malformed wait, and other routes run in a task.
    for target in ["/actions?wait=1", "/actions?wait=maybe", "/state", "/actions/x"] {
      let request = post(target, key: f.adminKey, body: message)
      #expect(!f.handler.respondsInline(to: request))
      #expect(await respondInline(f, request) == nil)
    }
    var get = post("/actions", key: f.adminKey, body: "")
    get.method = .get
    #expect(!f.handler.respondsInline(to: get))
    #expect(await respondInline(f, get) == nil)
  }

  @Test func concurrentPostsAreEachLoggedOnceAndARepeatedKeyIsAnsweredWithTheFirstSeq()
    async throws
  {
    let f = try await WebhookFixture.make()
    let rating =
      #"{"type":"submitRating","payload":{"group":"Knowledge","skill":"Synonyms","stars":9}}"#
    // 60 requests at once, every third one retrying the key of the one before it.
    let answers = await withTaskGroup(of: (Int, HTTPResponse).self) { group in
      for index in 0..<60 {
        let key = "k\(index - (index % 3 == 2 ? 1 : 0))"
        group.addTask {
          (
            index,
            await f.request(
              "POST", "/actions", key: f.adminKey, body: rating,
              headers: [("Idempotency-Key", key)])
          )
        }
      }
      var answers: [Int: HTTPResponse] = [:]
      for await (index, response) in group { answers[index] = response }
      return answers
    }
    let events = f.sink.lines.compactMap { try? Event.decode($0) }
    let intents = events.filter { $0.origin == .webhook }
    #expect(intents.count == 40)
    #expect(Set(intents.compactMap(\.idempotencyKey)).count == 40)
    #expect(events.map(\.seq) == Array(1...events.count))
    var seqOfKey: [String: Int] = [:]
    for intent in intents { seqOfKey[intent.idempotencyKey ?? ""] = intent.seq }
    for index in 0..<60 {
      let response = try #require(answers[index])
      #expect(response.status == 202, "request \(index)")
      let key = "k\(index - (index % 3 == 2 ? 1 : 0))"
      guard case .int(let seq) = response.json["seq"] else {
        Issue.record("request \(index): no seq")
        continue
      }
      #expect(seqOfKey.first { $0.key.hasSuffix(":" + key) }?.value == seq, "request \(index)")
    }
    #expect((0..<60).filter { answers[$0]?.headers["Idempotent-Replayed"] == "true" }.count == 20)
  }

  @Test func theBearerSchemeIsReadWithoutRegardToCaseAndSpacesAroundTheTokenAreSkipped()
    async throws
  {
    let f = try await WebhookFixture.make()
    for value in ["bearer \(f.adminKey)", "BEARER   \(f.adminKey)  ", "Bearer \(f.adminKey) "] {
      let response = await f.request(
        "POST", "/actions", body: message, headers: [("Authorization", value)])
      #expect(response.status == 202, "\(value)")
    }
  }

  @Test func aTokenOfTheWrongShapeOrWithAWrongSecretIsRefusedAndAppendsNothing() async throws {
    let f = try await WebhookFixture.make()
    let key = f.adminKey
    let id = key.dropFirst(5).prefix(16)
    let secret = key.dropFirst(22)
    let refused = [
      "Bearer",
      "Bearer ",
      "Basic \(key)",
      "Bearer \(key.dropLast())",
      "Bearer \(key)x",
      "Bearer \(key.uppercased())",
      "Bearer susi_\(id.uppercased())_\(secret)",
      "Bearer Susi_\(id)_\(secret)",
      "Bearer susi_\(id)-\(secret)",
      "Bearer susi_\(id)_\(String(repeating: "A", count: 43))",
      "Bearer susi_\(String(repeating: "0", count: 16))_\(secret)",
      "Bearer susi_\(id)_\(secret.dropLast())é",
    ]
    let before = f.sink.lines.count
    for value in refused {
      let response = await f.request(
        "POST", "/actions", body: message, headers: [("Authorization", value)])
      #expect(response.status == 401, "\(value)")
    }
    #expect(f.sink.lines.count == before)
  }
}
