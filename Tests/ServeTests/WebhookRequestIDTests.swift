import SusiCore
import SusiHTTPServer
import SusiHTTPTypes
import SusiJSON
import SusiOperatorLog
import SusiServe
import SusiStore
import Synchronization
import Testing

/// The id the operators' log gives a request reaches the `origin` of the intent it appends.
@Suite struct WebhookRequestIDTests {
  final class Lines: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    func writer() -> OperatorLog.Writer {
      { bytes in self.lines.withLock { $0.append(String(decoding: bytes, as: UTF8.self)) } }
    }
  }

  @Test func anIntentPostedThroughTheRequestLogCarriesItsLineIdInItsOrigin() async throws {
    let f = try await WebhookFixture.make()
    let lines = Lines()
    let log = OperatorLog(component: "serve", level: .info, format: .json, writer: lines.writer())
    let handler = RequestLogging(f.handler, log: log)
    let response = await handler.handle(
      HTTPRequest(
        method: .post, target: "/actions",
        headers: ["Authorization": "Bearer \(f.adminKey)", "Content-Type": "application/json"],
        body: Array(#"{"type":"setServer","payload":{"url":"embedded"}}"#.utf8)))
    #expect(response.status == 202)
    let id = try #require(response.headers[RequestLogging.header])
    let line = try JSONParser.parse(Array(try #require(lines.all.last).utf8.dropLast()))
    #expect(line["request"]?.string == id)
    let event = try Event.decode(f.sink.lines[1])
    #expect(event.origin == EventOrigin.webhook.carried(by: id))
    #expect(event.origin.isSender(.webhook))
    #expect(String(decoding: f.sink.lines[1], as: UTF8.self).contains(#""requestId":"\#(id)""#))
  }

  @Test func aGroupCreatedOverHTTPCarriesTheRequestIdToo() async throws {
    let f = try await WebhookFixture.make()
    let response = await f.request(
      "POST", "/admin/groups", key: f.adminKey, body: #"{"name":"ops"}"#,
      headers: [("X-Request-Id", "lb-42.a_b")])
    #expect(response.status == 201)
    let event = try Event.decode(try #require(f.sink.lines.last))
    #expect(event.action.type == .createAccessGroup)
    #expect(event.origin == EventOrigin.webhook.carried(by: "lb-42.a_b"))
  }

  @Test func anIdThatIsNotASaneTokenIsLeftOut() async throws {
    let f = try await WebhookFixture.make()
    let response = await f.request(
      "POST", "/actions", key: f.adminKey,
      body: #"{"type":"setServer","payload":{"url":"embedded"}}"#,
      headers: [("X-Request-Id", "two words")])
    #expect(response.status == 202)
    let event = try Event.decode(f.sink.lines[1])
    #expect(event.origin == .webhook)
    #expect(!String(decoding: f.sink.lines[1], as: UTF8.self).contains("requestId"))
  }
}
