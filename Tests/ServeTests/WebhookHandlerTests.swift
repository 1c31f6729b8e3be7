import SusiAccess
import SusiClock
import SusiCore
import SusiHTTPServer
import SusiHTTPTypes
import SusiJSON
import SusiServe
import SusiStore
import Testing

/// The HTTP routes of the webhook frontend, called directly on the handler.
@Suite struct WebhookHandlerTests {
  let rating =
    #"{"type":"submitRating","payload":{"group":"Knowledge","skill":"Synonyms","stars":9},"id":7}"#

  @Test func postedActionIsAppendedAndAnsweredWithItsSeq() async throws {
    let f = try await WebhookFixture.make()
    let response = await f.request(
      "POST", "/actions", key: f.adminKey,
      body: #"{"type":"setServer","payload":{"url":"embedded"}}"#)
    #expect(response.status == 202)
    #expect(response.json == ["seq": 2])
    let event = try Event.decode(f.sink.lines[1])
    #expect(event.origin == .webhook)
    #expect(event.action == .setServer(.init(url: "embedded")))
  }

  @Test func waitReturnsTheEventsTheActionCaused() async throws {
    let f = try await WebhookFixture.make()
    let response = await f.request("POST", "/actions?wait=1", key: f.adminKey, body: rating)
    #expect(response.status == 200)
    #expect(response.json["seq"] == 2)
    let events = try #require(response.json["events"]?.array)
    #expect(events.count == 1)
    #expect(events[0]["type"] == "actionRejected")
    #expect(events[0]["cause"] == 2)
    #expect(events[0]["id"] == 7)
    #expect(events[0]["payload"]?["reason"]?.string?.contains("stars") == true)
  }

  @Test func waitGivesUpAfterItsLimitWithWhatIsKnown() async throws {
    // A runner that never answers: the wait ends by the clock, not by results.
    let f = try await WebhookFixture.make(waitLimit: 10_000)
    let silent = Store(
      sink: MemoryEventSink(), runner: SilentRunner(),
      clock: ManualTimeSource(millisecondsSince1970: 1_795_341_600_000))
    let service = await WebhookService.start(
      store: silent, keys: f.keys, clock: f.clock,
      options: .init(waitLimit: 10_000))
    let token = KeyToken.generate()
    try f.keys.add(token)
    let issued = try await silent.send(
      .issueKey(.init(by: "local", key: token.keyID, groups: ["admin"])), origin: .cli)
    #expect(issued.seq == 1)
    async let answer = service.handler.handle(
      HTTPRequest(
        method: "POST", target: "/actions?wait=1",
        headers: ["Authorization": "Bearer \(token.text)"],
        body: Array(#"{"type":"sendMessage","payload":{"query":"hello"}}"#.utf8)))
    await f.clock.waitForSleepers(count: 1)
    await f.clock.advance(by: .milliseconds(10_000))
    let response = await answer
    #expect(response.status == 202)
    #expect(response.json == ["seq": 2, "events": []])
  }

  @Test func aFullStoreAnswers429AndAppendsNothing() async throws {
    let f = try await WebhookFixture.make()
    let sink = MemoryEventSink()
    let busy = Store(
      sink: sink, runner: SilentRunner(),
      clock: ManualTimeSource(millisecondsSince1970: 1_795_341_600_000), inFlightLimit: 2)
    let service = await WebhookService.start(store: busy, keys: f.keys, clock: f.clock)
    let token = KeyToken.generate()
    try f.keys.add(token)
    try await busy.send(
      .issueKey(.init(by: "local", key: token.keyID, groups: ["admin"])), origin: .cli)
    func post(_ query: String, key: String? = nil) async -> HTTPResponse {
      var headers: HTTPHeaders = ["Authorization": "Bearer \(token.text)"]
      if let key { headers.add("Idempotency-Key", key) }
      return await service.handler.handle(
        HTTPRequest(
          method: "POST", target: "/actions", headers: headers,
          body: Array(#"{"type":"sendMessage","payload":{"query":"\#(query)"}}"#.utf8)))
    }
    #expect(await post("one", key: "k1").status == 202)
    #expect(await post("two").status == 202)
    let refused = await post("three")
    #expect(refused.status == 429)
    #expect(refused.headers["Retry-After"] == "1")
    #expect(refused.json["error"]?["code"] == "busy")
    #expect(sink.lines.count == 3)
    // A retry of an accepted request is still answered, and health checks still pass.
    #expect(await post("one", key: "k1").status == 202)
    #expect(sink.lines.count == 3)
    let health = await service.handler.handle(HTTPRequest(method: "GET", target: "/healthz"))
    #expect(health.status == 200)
  }

  @Test func healthChecksAndAdminKeysMayUseTheReservedConnections() async throws {
    let f = try await WebhookFixture.make()
    let chat = try await f.issueKey(groups: ["default"])
    func priority(_ target: String, key: String?) -> Bool {
      var headers: HTTPHeaders = [:]
      if let key { headers.add("Authorization", "Bearer \(key)") }
      return f.handler.isPriority(HTTPRequest(method: "GET", target: target, headers: headers))
    }
    #expect(priority("/healthz", key: nil))
    #expect(priority("/admin/keys", key: f.adminKey))
    #expect(priority("/state", key: f.adminKey))
    #expect(!priority("/state", key: chat))
    #expect(!priority("/events/stream", key: nil))
    #expect(!priority("/admin/keys", key: KeyToken.generate().text))
  }

  @Test func unknownKeysGet401AndAppendNothing() async throws {
    let f = try await WebhookFixture.make()
    let before = f.eventCount
    let bogus = KeyToken.generate().text
    for i in 0..<10_000 {
      let key: String? =
        i % 4 == 0 ? nil : i % 4 == 1 ? "nonsense" : i % 4 == 2 ? bogus : f.adminKey + "x"
      let response = await f.request("POST", "/actions", key: key, body: rating)
      guard response.status == 401 else {
        Issue.record("request \(i) got \(response.status)")
        break
      }
    }
    #expect(f.eventCount == before)
    #expect(f.service.metrics.requestCount(route: "/actions", status: 401) == 10_000)
    let valid = await f.request("POST", "/actions", key: f.adminKey, body: rating)
    #expect(valid.status == 202)
  }

  @Test func unauthorizedAnswerSaysHowToAuthenticate() async throws {
    let f = try await WebhookFixture.make()
    let response = await f.request("GET", "/state")
    #expect(response.status == 401)
    #expect(response.headers["WWW-Authenticate"] == "Bearer")
    #expect(response.json["error"]?["code"] == "unauthorized")
  }

  @Test func badBodiesGet400WithTheirCodeAndAppendNothing() async throws {
    let f = try await WebhookFixture.make()
    let cases: [(String, String)] = [
      ("{", "invalid_json"),
      ("[1]", "not_an_object"),
      (#"{"payload":{}}"#, "invalid_request"),
      (#"{"type":5}"#, "invalid_request"),
      (#"{"type":"sendMessage","payload":{"query":"hi"},"extra":1}"#, "invalid_request"),
      (#"{"type":"fly","payload":{}}"#, "unknown_type"),
      (#"{"type":"messageReceived","payload":{}}"#, "result_type"),
      (#"{"type":"issueKey","payload":{}}"#, "admin_only"),
      (#"{"type":"sendMessage","payload":{"query":5}}"#, "invalid_payload"),
      (#"{"type":"sendMessage","payload":{"query":"hi","qeury":"typo"}}"#, "invalid_payload"),
      (#"{"type":"submitRating","payload":{"group":"Knowledge"}}"#, "invalid_payload"),
    ]
    for (body, code) in cases {
      let response = await f.request("POST", "/actions", key: f.adminKey, body: body)
      #expect(response.status == 400, "\(body)")
      #expect(response.json["error"]?["code"]?.string == code, "\(body): \(response.text)")
      #expect(response.json["error"]?["message"]?.string?.isEmpty == false)
    }
    #expect(f.eventCount == 1)
  }

  @Test func nonJSONContentTypeGets415() async throws {
    let f = try await WebhookFixture.make()
    let response = await f.request(
      "POST", "/actions", key: f.adminKey, body: rating, headers: [("Content-Type", "text/plain")])
    #expect(response.status == 415)
    #expect(f.eventCount == 1)
  }

  @Test func unknownPathGets404AndWrongMethod405WithAllow() async throws {
    let f = try await WebhookFixture.make()
    let missing = await f.request("GET", "/nothing", key: f.adminKey)
    #expect(missing.status == 404)
    let wrong = await f.request("GET", "/actions", key: f.adminKey)
    #expect(wrong.status == 405)
    #expect(wrong.headers["Allow"] == "POST")
    let keys = await f.request("PUT", "/admin/keys", key: f.adminKey)
    #expect(keys.headers["Allow"] == "GET, POST")
  }

  @Test func eachMissingPrivilegeGets403AndAppendsNothing() async throws {
    let f = try await WebhookFixture.make()
    let chat = try await f.issueKey(groups: ["default"])
    let before = f.eventCount
    let denied: [(String, String, String?)] = [
      ("POST", "/actions", rating),
      ("POST", "/actions", #"{"type":"changeSettings","payload":{"settings":{"theme":"dark"}}}"#),
      ("POST", "/actions", #"{"type":"setServer","payload":{"url":"embedded"}}"#),
      ("POST", "/actions", #"{"type":"login","payload":{"email":"a@b.c","password":"p"}}"#),
      ("GET", "/metrics", nil),
      ("GET", "/admin/access", nil),
      ("GET", "/admin/keys", nil),
      ("POST", "/admin/keys", #"{"groups":["default"]}"#),
      ("DELETE", "/admin/keys/key_0000000000000000", nil),
      ("POST", "/admin/groups", #"{"name":"mine"}"#),
      ("POST", "/admin/groups/default/privileges", #"{"privilege":"submitRating"}"#),
      ("DELETE", "/admin/groups/default/privileges/search", nil),
      ("GET", "/admin/subscribers", nil),
      ("POST", "/admin/subscribers", #"{"url":"http://127.0.0.1:1/hook"}"#),
    ]
    for (method, path, body) in denied {
      let response = await f.request(method, path, key: chat, body: body)
      #expect(response.status == 403, "\(method) \(path): \(response.text)")
      #expect(response.json["error"]?["code"] == "forbidden")
    }
    #expect(f.eventCount == before)
    // What the default group holds goes through.
    let allowed = await f.request(
      "POST", "/actions", key: chat, body: #"{"type":"sendMessage","payload":{"query":"hi"}}"#)
    #expect(allowed.status == 202)
    #expect(await f.request("GET", "/state", key: chat).status == 200)
    #expect(await f.request("GET", "/events", key: chat).status == 200)
  }

  @Test func sameIdempotencyKeyAppendsOnceAndAnswersTheSame() async throws {
    let f = try await WebhookFixture.make()
    let headers = [("Idempotency-Key", "order-1")]
    let first = await f.request("POST", "/actions", key: f.adminKey, body: rating, headers: headers)
    #expect(first.status == 202)
    await f.waitForEvents(3)
    let second = await f.request(
      "POST", "/actions", key: f.adminKey, body: rating, headers: headers)
    #expect(second.status == 202)
    #expect(second.json == first.json)
    #expect(second.headers["Idempotent-Replayed"] == "true")
    #expect(f.types == ["issueKey", "submitRating", "actionRejected"])
    let waited = await f.request(
      "POST", "/actions?wait=1", key: f.adminKey, body: rating, headers: headers)
    #expect(waited.status == 200)
    #expect(waited.json["events"]?.array?.map { $0["type"] } == ["actionRejected"])
    let reused = await f.request(
      "POST", "/actions", key: f.adminKey,
      body: #"{"type":"setServer","payload":{"url":"embedded"}}"#,
      headers: headers)
    #expect(reused.status == 422)
    #expect(f.eventCount == 3)
  }

  @Test func idempotencyKeyHoldsAcrossARestart() async throws {
    let directory = temporaryDirectory()
    let f = try await WebhookFixture.make(directory: directory)
    let headers = [("Idempotency-Key", "order-2")]
    let first = await f.request("POST", "/actions", key: f.adminKey, body: rating, headers: headers)
    await f.waitForEvents(3)
    await f.service.shutdown()
    await f.store.close()

    // A new process: the store replays the log, the keys file is read again.
    let g = try await WebhookFixture.make(
      replaying: f.sink.lines, directory: directory, issueAdmin: false)
    let again = await g.request("POST", "/actions", key: f.adminKey, body: rating, headers: headers)
    #expect(again.status == 202)
    #expect(again.json == first.json)
    #expect(g.eventCount == 3)
  }

  @Test func anIdempotencyKeyOlderThanADayMayBeUsedAgain() async throws {
    let directory = temporaryDirectory()
    let token = KeyToken.generate()
    try KeyFile(path: directory + "/log.keys").add(token)
    let now = ManualTimeSource(millisecondsSince1970: 1_795_341_600_000).now()
    let hours = { (h: Int64) in now.adding(milliseconds: -h * 3_600_000) }
    let setServer = Action.setServer(.init(url: "embedded"))
    let log = [
      Event(
        seq: 1, at: hours(25), origin: .cli,
        action: .issueKey(.init(by: "local", key: token.keyID, groups: ["admin"]))),
      Event(
        seq: 2, at: hours(25), origin: .webhook, idempotencyKey: "\(token.keyID):order-17",
        action: setServer),
      Event(
        seq: 3, at: hours(1), origin: .webhook, idempotencyKey: "\(token.keyID):order-18",
        action: setServer),
    ].map { $0.encoded() }
    let f = try await WebhookFixture.make(replaying: log, directory: directory, issueAdmin: false)
    let body = #"{"type":"setServer","payload":{"url":"embedded"}}"#
    let recent = await f.request(
      "POST", "/actions", key: token.text, body: body, headers: [("Idempotency-Key", "order-18")])
    #expect(recent.headers["Idempotent-Replayed"] == "true")
    #expect(recent.json == ["seq": 3])
    let old = await f.request(
      "POST", "/actions", key: token.text, body: body, headers: [("Idempotency-Key", "order-17")])
    #expect(old.status == 202)
    #expect(old.headers["Idempotent-Replayed"] == nil)
    #expect(old.json == ["seq": 4])
    let retried = await f.request(
      "POST", "/actions", key: token.text, body: body, headers: [("Idempotency-Key", "order-17")])
    #expect(retried.headers["Idempotent-Replayed"] == "true")
    #expect(retried.json == ["seq": 4])
    // The intent and the server switch the reducer answered at once.
    #expect(f.eventCount == 5)
  }

  @Test func idempotencyKeysAreScopedToTheCallersKey() async throws {
    let f = try await WebhookFixture.make()
    let other = try await f.issueKey(groups: ["admin"])
    let headers = [("Idempotency-Key", "same")]
    let a = await f.request("POST", "/actions", key: f.adminKey, body: rating, headers: headers)
    let b = await f.request("POST", "/actions", key: other, body: rating, headers: headers)
    #expect(a.status == 202 && b.status == 202)
    #expect(a.json["seq"] != b.json["seq"])
    let bad = await f.request(
      "POST", "/actions", key: f.adminKey, body: rating, headers: [("Idempotency-Key", "has space")]
    )
    #expect(bad.status == 400)
    #expect(bad.json["error"]?["code"] == "invalid_idempotency_key")
  }

  @Test func eventsArePagedAsJSONLinesFromTheLog() async throws {
    let f = try await WebhookFixture.make()
    for _ in 0..<3 { _ = await f.request("POST", "/actions", key: f.adminKey, body: rating) }
    await f.waitForEvents(7)
    let page = await f.request("GET", "/events?after=2&limit=3", key: f.adminKey)
    #expect(page.status == 200)
    #expect(page.headers["Content-Type"] == "application/x-ndjson")
    let lines = page.text.split(separator: "\n").map(String.init)
    #expect(lines.count == 3)
    #expect(lines.map { Array($0.utf8) } == Array(f.sink.lines[2..<5]))
    let bad = await f.request("GET", "/events?after=-1", key: f.adminKey)
    #expect(bad.status == 400)
  }

  @Test func stateShowsAccessOnlyToThoseWhoManageIt() async throws {
    let f = try await WebhookFixture.make()
    let chat = try await f.issueKey(groups: ["default"])
    let admin = try await f.request("GET", "/state", key: f.adminKey).collectedJSON()
    #expect(admin["access"]?["keys"] != nil)
    #expect(admin["server"] == "embedded")
    let plain = try await f.request("GET", "/state", key: chat).collectedJSON()
    #expect(plain["access"] == nil)
    #expect(plain["server"] == "embedded")
  }

  @Test func healthzNeedsNoKey() async throws {
    let f = try await WebhookFixture.make()
    let response = await f.request("GET", "/healthz")
    #expect(response.status == 200)
    #expect(response.json["status"] == "ok")
  }

  @Test func metricsCountRequestsEventsAndBacklog() async throws {
    let f = try await WebhookFixture.make()
    _ = await f.request("POST", "/actions", key: f.adminKey, body: rating)
    _ = await f.request("POST", "/actions", key: "bad", body: rating)
    await f.waitForEvents(3)
    let response = await f.request("GET", "/metrics", key: f.adminKey)
    #expect(response.status == 200)
    #expect(response.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8")
    let text = response.text
    #expect(text.contains("# TYPE susi_http_requests_total counter\n"))
    #expect(text.contains("susi_http_requests_total{route=\"/actions\",code=\"202\"} 1\n"))
    #expect(text.contains("susi_http_requests_total{route=\"/actions\",code=\"401\"} 1\n"))
    #expect(text.contains("susi_events_appended_total 2\n"))
    #expect(text.contains("susi_effects_in_flight 0\n"))
    #expect(text.hasSuffix("\n"))
  }

  @Test func metricsShowAppendLatencyAndFollowLag() async throws {
    let f = try await WebhookFixture.make()
    _ = await f.request("POST", "/actions", key: f.adminKey, body: rating)
    await f.waitForEvents(3)
    let text = await f.request("GET", "/metrics", key: f.adminKey).text
    #expect(text.contains("# TYPE susi_log_append_seconds histogram\n"))
    let appends = text.split(separator: "\n").first {
      $0.hasPrefix("susi_log_append_seconds_count ")
    }
    #expect(appends.flatMap { Int($0.split(separator: " ")[1]) }.map { $0 >= 2 } == true)
    #expect(text.contains("susi_log_append_seconds_bucket{le=\"+Inf\"}"))
    #expect(text.contains("# TYPE susi_log_follow_lag_seconds histogram\n"))
    #expect(text.contains("susi_log_follow_lag_seconds_count 0\n"), "no other process appended")
    #expect(text.contains("# TYPE susi_log_follow_lag_last_seconds gauge\n"))
  }
}

/// A runner that never reports anything.
final class SilentRunner: EffectsRunner {
  func start(_ effect: Effect, cause: Int, deliver: @escaping ResultDelivery) {}
  func waitUntilIdle(timeout: Double) async -> Bool { true }
  func shutdown() async {}
}
