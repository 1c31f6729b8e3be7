import Foundation
import SusiDelivery
import SusiHTTPClient
import SusiHTTPServer
import SusiHTTPTypes
import SusiJSON
import SusiRunner
import SusiServe
import Testing

/// Subscriber URLs may not point into the machine or its network: refused when registered over
/// the admin API, with a message that says how to allow them. (The check at every delivery
/// attempt is tested with the deliveries.)
@Suite struct WebhookTargetTests {
  @Test func internalSubscriberURLsAreRefusedWhenRegistered() async throws {
    let f = try await WebhookFixture.make(targets: TargetPolicy())
    for url in [
      "http://127.0.0.1:9/hook", "http://[::1]/hook", "http://169.254.169.254/latest/meta-data",
      "http://10.0.0.7/hook", "http://2130706433/hook", "http://0x7f.1/hook",
      "http://[::ffff:127.0.0.1]/hook", "http://localhost:8080/hook",
    ] {
      let response = await f.request(
        "POST", "/admin/subscribers", key: f.adminKey, body: #"{"url":"\#(url)"}"#)
      #expect(response.status == 400, "\(url)")
      #expect(response.json["error"]?["code"] == "invalid_url", "\(url)")
    }
    let list = await f.request("GET", "/admin/subscribers", key: f.adminKey)
    #expect(list.json["subscribers"] == [])
    // A public address is accepted (no request is made when registering).
    let accepted = await f.request(
      "POST", "/admin/subscribers", key: f.adminKey, body: #"{"url":"http://93.184.216.34/hook"}"#)
    #expect(accepted.status == 201)
  }

  @Test func theRefusalNamesTheURLAndHowToAllowIt() async throws {
    let f = try await WebhookFixture.make(targets: TargetPolicy())
    let response = await f.request(
      "POST", "/admin/subscribers", key: f.adminKey, body: #"{"url":"http://169.254.169.254/x"}"#)
    let message = try #require(response.json["error"]?["message"]?.string)
    #expect(message.hasPrefix("http://169.254.169.254/x points at a link-local"), "\(message)")
    #expect(message.contains("--allow-private-targets"))
  }
}
