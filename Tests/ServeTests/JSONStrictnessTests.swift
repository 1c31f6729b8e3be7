import SusiCore
import SusiHTTPServer
import SusiJSON
import Testing

@testable import SusiJSONLines

/// The frontends' answers to the parser's stricter reading: a repeated key is their usual
/// `invalid_json`, and an id no Int or Double holds comes back exactly as sent.
@Suite struct JSONStrictnessTests {
  @Test func jsonLinesRefusesARepeatedKeyAsInvalidJSON() {
    let line = #"{"type":"sendMessage","payload":{"query":"hi","query":"x"}}"#
    let decoded = LineDecoder.decode(
      InputLine(number: 3, content: .text(Array(line.utf8)[...])), maximumLineLength: 1 << 20)
    guard case .refused(let error) = decoded else {
      Issue.record("expected a refusal")
      return
    }
    #expect(error.code == .invalidJSON)
    #expect(error.message.contains(#"duplicate key "query""#))
  }

  @Test func jsonLinesKeepsAThirtyDigitIdExactly() {
    let line = #"{"type":"logout","id":123456789012345678901234567890}"#
    let decoded = LineDecoder.decode(
      InputLine(number: 1, content: .text(Array(line.utf8)[...])), maximumLineLength: 1 << 20)
    guard case .intent(_, let id, _) = decoded else {
      Issue.record("expected an intent")
      return
    }
    #expect(id?.compactText == "123456789012345678901234567890")
  }

  @Test func theWebhookRefusesARepeatedKeyAsInvalidJSON() async throws {
    let f = try await WebhookFixture.make()
    let response = await f.request(
      "POST", "/actions", key: f.adminKey,
      body: #"{"type":"sendMessage","payload":{"query":"hi"},"type":"logout"}"#)
    #expect(response.status == 400)
    #expect(response.json["error"]?["code"]?.string == "invalid_json")
    #expect(f.eventCount == 1)
  }
}
