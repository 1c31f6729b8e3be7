import SusiAccess
import SusiCore
import SusiDelivery
import SusiHTTPClient
import SusiHTTPServer
import SusiServe
import SusiStore
import Testing

/// `susi serve keys|groups|subscribers …` on a store, as the local operator.
@Suite struct WebhookCommandTests {
  func administration(_ directory: String = temporaryDirectory()) async throws -> (
    ServeAdministration, WebhookFixture
  ) {
    let f = try await WebhookFixture.make(directory: directory, issueAdmin: false)
    let admin = ServeAdministration(
      store: f.store, keys: f.keys,
      subscribers: try SubscriberFile(path: directory + "/log.subscribers"),
      cursors: try DeliveryCursors(path: directory + "/log.cursors"),
      targets: TargetPolicy(allowsPrivateTargets: true))
    return (admin, f)
  }

  @Test func initPrintsTheFirstAdminKeyOnceAndItWorks() async throws {
    let (admin, f) = try await administration()
    let first = await admin.run(["keys", "init"], options: [:])
    #expect(first.exitCode == 0)
    let token = String(first.output.dropLast())
    #expect(KeyToken(token) != nil)
    #expect(first.notes.contains("shown only once"))
    let again = await admin.run(["keys", "init"], options: [:])
    #expect(again.exitCode == 1)
    #expect(again.notes.contains("exists already"))
    // The key works over the API at once: the gate follows the store.
    #expect(await f.request("GET", "/admin/access", key: token).status == 200)
    #expect(f.types == ["issueKey"])
  }

  @Test func groupsAndKeysChangeThroughTheSameRules() async throws {
    let (admin, f) = try await administration()
    #expect(await admin.run(["groups", "create", "ops"], options: [:]).exitCode == 0)
    let granted = await admin.run(["groups", "grant", "ops", "submitRating"], options: [:])
    #expect(granted.output.contains("submitRating"))
    let refused = await admin.run(["groups", "grant", "ops", "fly"], options: [:])
    #expect(refused.exitCode == 1)
    #expect(refused.notes.contains("no privilege is called 'fly'"))
    #expect(await admin.run(["groups", "grant", "ops"], options: [:]).exitCode == 64)
    let issued = await admin.run(
      ["keys", "issue"], options: ["--groups": "ops, default", "--label": "ci"])
    let id = try #require(KeyToken(String(issued.output.dropLast()))?.keyID)
    let listing = await admin.run(["keys", "list"], options: [:])
    #expect(listing.output.contains("\(id)  default,ops  \"ci\""))
    #expect(await admin.run(["keys", "revoke", id], options: [:]).exitCode == 0)
    #expect(await admin.run(["keys", "revoke", id], options: [:]).exitCode == 1)
    #expect(await admin.run(["groups", "list"], options: [:]).output.contains("ops: "))
    #expect(f.types == ["createAccessGroup", "grantPrivilege", "issueKey", "revokeKey"])
  }

  @Test func subscribersAreAddedListedAndRemoved() async throws {
    let directory = temporaryDirectory()
    let (admin, _) = try await administration(directory)
    let added = await admin.run(
      ["subscribers", "add", "http://127.0.0.1:9/hook"],
      options: ["--id": "billing", "--events": "ratingSubmitted"])
    #expect(added.exitCode == 0)
    #expect(WebhookSecret(String(added.output.dropLast())) != nil)
    let listing = await admin.run(["subscribers", "list"], options: [:])
    #expect(listing.output.contains("billing  http://127.0.0.1:9/hook  events: ratingSubmitted"))
    #expect(try SubscriberFile(path: directory + "/log.subscribers").subscriber("billing") != nil)
    #expect(await admin.run(["subscribers", "add", "ftp://x"], options: [:]).exitCode == 64)
    #expect(await admin.run(["subscribers", "remove", "billing"], options: [:]).exitCode == 0)
    #expect(await admin.run(["subscribers", "remove", "billing"], options: [:]).exitCode == 1)
  }

  @Test func anInternalSubscriberURLIsRefusedFromTheCommandLineAsOverHTTP() async throws {
    let directory = temporaryDirectory()
    let f = try await WebhookFixture.make(directory: directory, issueAdmin: false)
    let admin = ServeAdministration(
      store: f.store, keys: f.keys,
      subscribers: try SubscriberFile(path: directory + "/log.subscribers"),
      cursors: try DeliveryCursors(path: directory + "/log.cursors"), targets: TargetPolicy())
    for url in ["http://127.0.0.1:9/hook", "http://169.254.169.254/latest", "http://0x7f.1/x"] {
      let refused = await admin.run(["subscribers", "add", url], options: [:])
      #expect(refused.exitCode == 64, "\(url)")
      #expect(refused.notes.contains("--allow-private-targets"), "\(url): \(refused.notes)")
    }
    #expect(try SubscriberFile(path: directory + "/log.subscribers").subscribers.isEmpty)
  }

  @Test func subscriberMessagesAndListingLinesAreExact() async throws {
    let directory = temporaryDirectory()
    let (admin, f) = try await administration(directory)
    let secret = WebhookSecret.generate().text
    let added = await admin.run(
      ["subscribers", "add", "http://127.0.0.1:9/hook"],
      options: ["--id": "billing", "--secret": secret, "--after": "0"])
    #expect(added.output == "")
    #expect(added.notes == "Added subscriber billing for http://127.0.0.1:9/hook, after event 0.\n")
    let cursors = try DeliveryCursors(path: directory + "/log.cursors")
    try cursors.save("billing", delivered: 0)
    try cursors.disable("billing", reason: "410 Gone", at: 1_795_341_600)
    let reopened = ServeAdministration(
      store: f.store, keys: f.keys,
      subscribers: try SubscriberFile(path: directory + "/log.subscribers"), cursors: cursors,
      targets: TargetPolicy(allowsPrivateTargets: true))
    try await f.store.send(.loadGroups(.init()), origin: .cli)
    let lastSeq = await f.store.lastSeq
    let listing = await reopened.run(["subscribers", "list"], options: [:])
    #expect(
      listing.output
        == "billing  http://127.0.0.1:9/hook  events: *  delivered: 0  backlog: \(lastSeq)  DISABLED (410 Gone)\n"
    )
    // A second subscriber of the same id is refused and leaves the first one's cursor alone.
    let again = await reopened.run(
      ["subscribers", "add", "http://127.0.0.1:9/other"], options: ["--id": "billing"])
    #expect(again.exitCode == 1)
    #expect(again.output == "")
    #expect(
      again.notes == "susi: \(directory)/log.subscribers: a subscriber billing exists already\n")
    #expect(try DeliveryCursors(path: directory + "/log.cursors").cursor("billing") != nil)
    let missing = await reopened.run(["subscribers", "remove", "nobody"], options: [:])
    #expect(missing.notes == "susi: no subscriber is called 'nobody'\n")
    #expect(missing.exitCode == 1)
  }

  @Test func unknownSubcommandIsAUsageError() async throws {
    let (admin, _) = try await administration()
    #expect(await admin.run(["keys", "rotate"], options: [:]).exitCode == 64)
  }
}
