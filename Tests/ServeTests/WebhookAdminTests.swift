import Foundation
import SusiAccess
import SusiCore
import SusiCrypto
import SusiFiles
import SusiHTTPServer
import SusiJSON
import SusiServe
import SusiStore
import Testing

/// The /admin routes: groups, privileges and keys as events in the log, checked by the same
/// rules the reducer applies.
@Suite struct WebhookAdminTests {
  @Test func adminCreatesGroupGrantsAndIssuesAKeyThatWorks() async throws {
    let f = try await WebhookFixture.make()
    let created = await f.request(
      "POST", "/admin/groups", key: f.adminKey, body: #"{"name":"raters"}"#)
    #expect(created.status == 201)
    #expect(created.json["privileges"]?.array?.count == AccessControl.defaultPrivileges.count)
    let granted = await f.request(
      "POST", "/admin/groups/raters/privileges", key: f.adminKey,
      body: #"{"privilege":"submitRating"}"#)
    #expect(granted.status == 200)
    #expect(granted.json["privileges"]?.array?.contains("submitRating") == true)
    let revoked = await f.request(
      "DELETE", "/admin/groups/raters/privileges/search", key: f.adminKey)
    #expect(revoked.status == 200)
    #expect(revoked.json["privileges"]?.array?.contains("search") == false)

    let rater = try await f.issueKey(groups: ["raters"])
    let rate =
      #"{"type":"submitRating","payload":{"group":"Knowledge","skill":"Synonyms","stars":4}}"#
    #expect(await f.request("POST", "/actions", key: rater, body: rate).status == 202)
    let search = #"{"type":"search","payload":{"query":"swift"}}"#
    #expect(await f.request("POST", "/actions", key: rater, body: search).status == 403)
    #expect(
      f.types.prefix(5) == [
        "issueKey", "createAccessGroup", "grantPrivilege", "revokePrivilege", "issueKey",
      ])
  }

  @Test func issuedKeyIsShownOnceAndStoredOnlyAsAHash() async throws {
    let f = try await WebhookFixture.make()
    let response = await f.request("POST", "/admin/keys", key: f.adminKey, body: #"{"label":"ci"}"#)
    #expect(response.status == 201)
    let token = try #require(response.json["key"]?.string)
    let id = try #require(response.json["id"]?.string)
    #expect(response.json["groups"] == ["default"])
    #expect(token.hasPrefix("susi_\(id.dropFirst(4))_"))
    // Neither the log nor the keys file holds the token.
    let log = f.sink.lines.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n")
    #expect(!log.contains(token))
    #expect(log.contains(id))
    let file = try String(contentsOfFile: f.directory + "/log.keys", encoding: .utf8)
    #expect(!file.contains(token))
    #expect(file.contains(ByteEncoding.hex(Digest.sha256(token.utf8))))
    let attributes = try FileManager.default.attributesOfItem(atPath: f.directory + "/log.keys")
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
    // The listing never shows secrets.
    let listing = await f.request("GET", "/admin/keys", key: f.adminKey)
    #expect(!listing.text.contains(token))
    #expect(listing.json["keys"]?.array?.count == 2)
  }

  @Test func revokedKeyGets401AndNothingIsAppended() async throws {
    let f = try await WebhookFixture.make()
    let chat = try await f.issueKey(groups: ["default"])
    let id = try #require(KeyToken(chat)?.keyID)
    let message = #"{"type":"sendMessage","payload":{"query":"hi"}}"#
    #expect(await f.request("POST", "/actions", key: chat, body: message).status == 202)
    await f.waitForEvents(4)
    #expect(await f.request("DELETE", "/admin/keys/\(id)", key: f.adminKey).status == 200)
    let before = f.eventCount
    let refused = await f.request("POST", "/actions", key: chat, body: message)
    #expect(refused.status == 401)
    #expect(f.eventCount == before)
    #expect(!f.keys.keyIDs.contains(id))
    #expect(await f.request("DELETE", "/admin/keys/\(id)", key: f.adminKey).status == 409)
  }

  @Test func nonAdminCannotCreateGroupsOrGrantAndAppendsNothing() async throws {
    let f = try await WebhookFixture.make()
    // A key that may manage keys but not groups.
    _ = await f.request("POST", "/admin/groups", key: f.adminKey, body: #"{"name":"keepers"}"#)
    _ = await f.request(
      "POST", "/admin/groups/keepers/privileges", key: f.adminKey,
      body: #"{"privilege":"keys.manage"}"#)
    let keeper = try await f.issueKey(groups: ["keepers"])
    let before = f.eventCount
    #expect(
      await f.request("POST", "/admin/groups", key: keeper, body: #"{"name":"mine"}"#).status == 403
    )
    #expect(
      await f.request(
        "POST", "/admin/groups/keepers/privileges", key: keeper, body: #"{"privilege":"search"}"#
      ).status
        == 403)
    #expect(f.eventCount == before)
  }

  @Test func keyCannotGrantOrIssueAboveWhatItHolds() async throws {
    let f = try await WebhookFixture.make()
    _ = await f.request("POST", "/admin/groups", key: f.adminKey, body: #"{"name":"managers"}"#)
    for privilege in ["groups.manage", "keys.manage"] {
      _ = await f.request(
        "POST", "/admin/groups/managers/privileges", key: f.adminKey,
        body: #"{"privilege":"\#(privilege)"}"#)
    }
    let manager = try await f.issueKey(groups: ["managers"])
    let before = f.eventCount

    let grant = await f.request(
      "POST", "/admin/groups/managers/privileges", key: manager,
      body: #"{"privilege":"submitRating"}"#)
    #expect(grant.status == 403)
    #expect(grant.json["error"]?["message"]?.string?.contains("does not hold") == true)
    let issue = await f.request("POST", "/admin/keys", key: manager, body: #"{"groups":["admin"]}"#)
    #expect(issue.status == 403)
    let adminID = try #require(KeyToken(f.adminKey)?.keyID)
    #expect(await f.request("DELETE", "/admin/keys/\(adminID)", key: manager).status == 403)
    #expect(f.eventCount == before)
    // A refused issue leaves no hash behind.
    #expect(f.keys.keyIDs.count == 2)

    // What it holds it can hand on.
    let issued = await f.request(
      "POST", "/admin/keys", key: manager, body: #"{"groups":["default"]}"#)
    #expect(issued.status == 201)
  }

  @Test func adminRequestsWithBadBodiesOrNamesAreRefused() async throws {
    let f = try await WebhookFixture.make()
    let cases: [(String, String, String?, Int)] = [
      ("POST", "/admin/groups", #"{"name":"Bad Name"}"#, 400),
      ("POST", "/admin/groups", #"{"name":"default"}"#, 409),
      ("POST", "/admin/groups", #"{"nmae":"x"}"#, 400),
      ("POST", "/admin/groups", "{", 400),
      ("POST", "/admin/groups/none/privileges", #"{"privilege":"search"}"#, 404),
      ("POST", "/admin/groups/default/privileges", #"{"privilege":"fly"}"#, 400),
      ("POST", "/admin/groups/admin/privileges", #"{"privilege":"search"}"#, 409),
      ("POST", "/admin/keys", #"{"groups":["nobody"]}"#, 404),
      ("DELETE", "/admin/keys/key_0000000000000000", nil, 404),
    ]
    let before = f.eventCount
    for (method, path, body, status) in cases {
      let response = await f.request(method, path, key: f.adminKey, body: body)
      #expect(response.status == status, "\(method) \(path) \(body ?? ""): \(response.text)")
    }
    #expect(f.eventCount == before)
  }

  @Test func accessChangesReplayToTheSameDecisions() async throws {
    let directory = temporaryDirectory()
    let f = try await WebhookFixture.make(directory: directory)
    _ = await f.request("POST", "/admin/groups", key: f.adminKey, body: #"{"name":"raters"}"#)
    _ = await f.request(
      "POST", "/admin/groups/raters/privileges", key: f.adminKey,
      body: #"{"privilege":"submitRating"}"#)
    let rater = try await f.issueKey(groups: ["raters"])
    let chat = try await f.issueKey(groups: ["default"])
    _ = await f.request("DELETE", "/admin/groups/raters/privileges/sendMessage", key: f.adminKey)
    _ = await f.request("DELETE", "/admin/keys/\(KeyToken(chat)!.keyID)", key: f.adminKey)
    let live = await f.store.state.access
    await f.service.shutdown()

    let g = try await WebhookFixture.make(
      replaying: f.sink.lines, directory: directory, issueAdmin: false)
    #expect(await g.store.state.access == live)
    let probes: [(String, String)] = [
      (
        #"{"type":"submitRating","payload":{"group":"Knowledge","skill":"Synonyms","stars":4}}"#,
        "submitRating"
      ),
      (#"{"type":"sendMessage","payload":{"query":"hi"}}"#, "sendMessage"),
      (#"{"type":"search","payload":{"query":"swift"}}"#, "search"),
    ]
    for key in [f.adminKey, rater, chat] {
      for (body, _) in probes {
        let a = await f.request("POST", "/actions", key: key, body: body).status
        let b = await g.request("POST", "/actions", key: key, body: body).status
        #expect(a == b, "\(body)")
      }
    }
    #expect(await g.request("POST", "/actions", key: rater, body: probes[0].0).status == 202)
    #expect(await g.request("POST", "/actions", key: rater, body: probes[1].0).status == 403)
    #expect(await g.request("POST", "/actions", key: chat, body: probes[1].0).status == 401)
  }

  @Test func accessListingNamesEveryPrivilege() async throws {
    let f = try await WebhookFixture.make()
    let response = await f.request("GET", "/admin/access", key: f.adminKey)
    #expect(response.status == 200)
    #expect(
      response.json["privileges"]?.array?.compactMap(\.string) == Privilege.all.map(\.rawValue))
    #expect(response.json["access"]?["groups"]?["admin"] != nil)
  }

  @Test func keysFileThatOthersCanReadIsRefused() throws {
    let directory = temporaryDirectory()
    let path = directory + "/open.keys"
    _ = FileManager.default.createFile(
      atPath: path, contents: Data(#"{"format":"susi-keys","version":1,"keys":[]}"#.utf8),
      attributes: nil)
    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
    #expect(throws: PrivateFile.Failure.self) { try KeyFile(path: path) }
  }
}
