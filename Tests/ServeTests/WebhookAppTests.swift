import SusiAccess
import SusiApplication
import SusiCommandLine
import SusiCore
import SusiDelivery
import SusiHTTPClient
import SusiHTTPServer
import SusiHTTPTypes
import SusiJSON
import SusiServe
import SusiStore
import Testing

/// The webhook frontend on a real log file through the app bootstrap, across a restart.
@Suite struct WebhookAppTests {
  static let rating =
    #"{"type":"submitRating","payload":{"group":"Knowledge","skill":"Synonyms","stars":9}}"#

  /// Starts susi on the log in `directory` with the webhook frontend in front of it.
  func start(_ directory: String) async throws -> (SusiApp, WebhookService) {
    let log = directory + "/events.jsonl"
    let app = try await SusiApp.start(
      CommonOptions(log: log, stateDirectory: directory + "/state"), origin: .webhook,
      startEmbedded: false)
    let service = await WebhookService.start(
      store: app.store,
      keys: try KeyFile(path: log + ".keys"))
    return (app, service)
  }

  func post(
    _ service: WebhookService, key: String, path: String = "/actions", idempotencyKey: String
  ) async
    -> (Int, JSON)
  {
    let response = await service.handler.handle(
      .init(
        method: "POST", target: path,
        headers: [
          "Authorization": "Bearer \(key)", "Content-Type": "application/json",
          "Idempotency-Key": idempotencyKey,
        ], body: Array(Self.rating.utf8)))
    return (response.status, response.json)
  }

  @Test func idempotencyKeyAndOldEventsSurviveARestartOfTheLog() async throws {
    let directory = temporaryDirectory()
    var (app, service) = try await start(directory)
    let administration = ServeAdministration(
      store: app.store, keys: service.gate.keyFile, subscribers: SubscriberFile(memory: []),
      cursors: DeliveryCursors(), targets: TargetPolicy())
    let key = String(await administration.run(["keys", "init"], options: [:]).output.dropLast())
    let (status, first) = await post(
      service, key: key, path: "/actions?wait=1", idempotencyKey: "once")
    #expect(status == 200)
    #expect(first["events"]?.array?.first?["type"] == "actionRejected")
    await service.shutdown()
    await app.stop()

    (app, service) = try await start(directory)
    let (again, second) = await post(service, key: key, idempotencyKey: "once")
    #expect(again == 202)
    #expect(second["seq"] == first["seq"])
    // The old events come from the log file.
    let events = await service.handler.handle(
      .init(method: "GET", target: "/events?after=0", headers: ["Authorization": "Bearer \(key)"]))
    let types = events.text.split(separator: "\n").compactMap {
      try? JSONParser.parse(String($0))["type"]?.string
    }
    #expect(types == ["issueKey", "submitRating", "actionRejected"])
    await service.shutdown()
    await app.stop()
  }
}
