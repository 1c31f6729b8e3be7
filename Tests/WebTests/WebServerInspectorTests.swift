import Foundation
import SusiApplication
import SusiCore
import SusiCrypto
import SusiEventLog
import SusiHTTPServer
import SusiHTTPTypes
import SusiJSON
import SusiServer
import SusiStore
import Testing

@testable import SusiWeb

/// `/inspector/state` and `/inspector/log`: the state at any seq, and the log as a download.
@Suite struct WebServerInspectorTests {
  /// The canonical state after each event of the log's lines, folded here independently.
  static func statesAfterEachEvent(_ lines: [[UInt8]]) throws -> [String] {
    var recovered = Recovered()
    var states = [String(decoding: recovered.state.canonicalJSON(), as: UTF8.self)]
    for line in lines {
      recovered.apply(try Event.decode(line))
      states.append(String(decoding: recovered.state.canonicalJSON(), as: UTF8.self))
    }
    return states
  }

  static func logLines(_ web: WebFixture, _ session: String) async throws -> [[UInt8]] {
    let events = try await web.request("GET", "/events?after=0&limit=1000", session: session)
    #expect(events.status == 200)
    return events.body.split(separator: 0x0A).map(Array.init)
  }

  @Test func theInspectorStateAtEachSeqEqualsAReplayToThatSeq() async throws {
    let directory = temporaryDirectory()
    // A first run leaves a snapshot (one every 4 events); the second run adds events after it,
    // so later seqs start from the snapshot and earlier ones read the log from its start.
    try await WebFixture.withLocal(directory: directory, snapshotEvery: 4) { web in
      let id = try await web.signIn()
      for query in ["hi", "what is the time"] {
        try await web.post(#"{"type":"sendMessage","payload":{"query":"\#(query)"}}"#, session: id)
      }
    }
    #expect(!SnapshotFiles(logPath: directory + "/events.jsonl").all().isEmpty)
    try await WebFixture.withLocal(directory: directory, snapshotEvery: 4) { web in
      let id = try await web.signIn()
      try await web.post(#"{"type":"sendMessage","payload":{"query":"hello"}}"#, session: id)
      try await web.post(#"{"type":"loadGroups"}"#, session: id)
      let lines = try await Self.logLines(web, id)
      let lastSeq = await web.store.lastSeq
      #expect(lines.count == lastSeq && lastSeq >= 8)
      let expected = try Self.statesAfterEachEvent(lines)
      // Forwards (each step folds one event onto the last state), backwards (from the
      // snapshot, or from the start of the log before it), and jumping about.
      let order = Array(0...lastSeq) + (0...lastSeq).reversed() + [3, lastSeq, 1, 5, 2, 0]
      for seq in order {
        let answer = try await web.request("GET", "/inspector/state?seq=\(seq)", session: id)
        #expect(answer.status == 200, "seq \(seq)")
        #expect(answer.headers["Content-Type"] == "application/json")
        #expect(answer.headers["X-Seq"] == String(seq))
        #expect(answer.text == expected[seq], "seq \(seq)")
      }
      let now = try await web.request("GET", "/state", session: id)
      let last = try await web.request("GET", "/inspector/state?seq=\(lastSeq)", session: id)
      #expect(last.body == now.body)
    }
  }

  @Test func aSeqOutsideTheLogIsRefused() async throws {
    try await WebFixture.withLocal { web in
      let id = try await web.signIn()
      try await web.post(#"{"type":"sendMessage","payload":{"query":"hi"}}"#, session: id)
      let lastSeq = await web.store.lastSeq
      for seq in ["", "-1", "\(lastSeq + 1)", "abc", "1.5", "99999999999999999999"] {
        let answer = try await web.request("GET", "/inspector/state?seq=\(seq)", session: id)
        #expect(answer.status == 400, "seq '\(seq)'")
        #expect(answer.errorCode == "invalid_seq", "seq '\(seq)'")
      }
      let missing = try await web.request("GET", "/inspector/state", session: id)
      #expect(missing.errorCode == "invalid_seq")
      let posted = try await web.request(
        "POST", "/inspector/state?seq=1", session: id, origin: WebFixture.origin, body: "{}")
      #expect(posted.status == 405)
    }
  }

  @Test func theLogDownloadsAsTheExactFile() async throws {
    try await WebFixture.withLocal { web in
      let id = try await web.signIn()
      try await web.post(#"{"type":"sendMessage","payload":{"query":"hi"}}"#, session: id)
      let answer = try await web.request("GET", "/inspector/log", session: id)
      #expect(answer.status == 200)
      #expect(answer.headers["Content-Type"] == "application/x-ndjson")
      #expect(
        answer.headers["Content-Disposition"] == #"attachment; filename="susi-events.jsonl""#)
      let file = try #require(FileManager.default.contents(atPath: web.log))
      #expect(answer.body == Array(file))
      #expect(isHardened(answer))
    }
  }
}

/// `/images?url=…`: pictures from the image cache only, with validators.
@Suite struct WebServerImageTests {
  @Test func aCachedImageIsServedWithItsETagAndRevalidatesTo304() async throws {
    try await WebFixture.withLocal { web in
      let id = try await web.signIn()
      let url = try #require(web.app.embedded?.baseURLString) + "/i/berlin.png"
      let target = "/images?url=" + URLEncodedForm.percentEncode(url)
      let before = try await web.request("GET", target, session: id)
      #expect(before.status == 404)
      #expect(before.errorCode == "not_cached")

      let cached = try await web.post(
        #"{"type":"cacheImage","payload":{"url":"\#(url)"}}"#, session: id)
      #expect(cached.text.contains("imageCached"))
      let answer = try await web.request("GET", target, session: id)
      #expect(answer.status == 200)
      #expect(answer.headers["Content-Type"] == "image/png")
      #expect(answer.headers["Cache-Control"] == "private, max-age=86400")
      #expect(isHardened(answer, cached: true))
      let tag = try #require(answer.headers["ETag"])
      let image = try #require(await web.store.state.images[url])
      #expect(answer.body == Array(try #require(FileManager.default.contents(atPath: image.path))))
      #expect(tag == "\"\(ByteEncoding.hex(Digest.sha256(answer.body)))\"")

      for validator in [tag, "W/\(tag)", "\"other\", \(tag)", "*"] {
        let again = try await web.request(
          "GET", target, session: id, headers: [("If-None-Match", validator)])
        #expect(again.status == 304, "\(validator)")
        #expect(again.body.isEmpty)
        #expect(again.headers["ETag"] == tag)
      }
      let changed = try await web.request(
        "GET", target, session: id, headers: [("If-None-Match", "\"other\"")])
      #expect(changed.status == 200)

      let noURL = try await web.request("GET", "/images", session: id)
      #expect(noURL.status == 400)
    }
  }

  @Test func anImagePathOutsideTheCacheIsNeverServed() async throws {
    // A log whose imageCached results point outside the cache folder: at a file elsewhere,
    // through `..`, and at a cache-named link that leads out.
    let directory = temporaryDirectory()
    let images = directory + "/images"
    try FileManager.default.createDirectory(atPath: images, withIntermediateDirectories: true)
    let secret = directory + "/secret.txt"
    try Data("not an image".utf8).write(to: URL(fileURLWithPath: secret))
    let linkName = String(repeating: "ab", count: 32) + ".png"
    try FileManager.default.createSymbolicLink(
      atPath: images + "/" + linkName, withDestinationPath: secret)
    let paths = [
      secret, images + "/../secret.txt", "/etc/passwd", images + "/" + linkName,
      images + "/" + String(repeating: "cd", count: 32) + ".png",
    ]
    let writer = try EventLogWriter(path: directory + "/events.jsonl")
    let at = Timestamp(milliseconds: 1_795_341_600_000)
    var seq = 0
    for (index, path) in paths.enumerated() {
      let url = "http://example.org/\(index).png"
      seq += 1
      _ = try writer.appendLine(
        Event(seq: seq, at: at, origin: .cli, action: .cacheImage(.init(url: url))).encoded())
      seq += 1
      _ = try writer.appendLine(
        Event(
          seq: seq, at: at, origin: .runner, cause: seq - 1,
          action: .imageCached(.init(url: url, path: path, bytes: 12))
        ).encoded())
    }
    try writer.close()

    try await WebFixture.withLocal(directory: directory) { web in
      let id = try await web.signIn()
      #expect(await web.store.state.images.count == paths.count)
      for index in paths.indices {
        let url = URLEncodedForm.percentEncode("http://example.org/\(index).png")
        let answer = try await web.request("GET", "/images?url=\(url)", session: id)
        #expect(answer.status == 404, "\(paths[index])")
        #expect(answer.errorCode == "not_cached", "\(paths[index])")
      }
    }
  }
}

/// The page's files: only files inside the resources folder are served.
@Suite struct WebServerPageTests {
  @Test func pagePathsCannotLeaveTheResourcesFolder() async throws {
    let directory = temporaryDirectory()
    let folder = directory + "/pages"
    try FileManager.default.createDirectory(
      atPath: folder + "/icons", withIntermediateDirectories: true)
    for (name, text) in [
      ("index.html", "<p>index</p>"), ("app.js", "let a = 1"), ("icons/star.svg", "<svg/>"),
      (".hidden.js", "hidden"),
    ] {
      try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/" + name))
    }
    try Data("secret".utf8).write(to: URL(fileURLWithPath: directory + "/secret.txt"))
    try FileManager.default.createSymbolicLink(
      atPath: folder + "/link.txt", withDestinationPath: directory + "/secret.txt")
    let pages = WebPages(folder: URL(fileURLWithPath: folder))

    try await WebFixture.withLocal(pages: pages) { web in
      let id = try await web.signIn()
      let served = try await web.request("GET", "/icons/star.svg", session: id)
      #expect(served.status == 200)
      #expect(served.headers["Content-Type"] == "image/svg+xml")
      #expect(try await web.request("GET", "/", session: id).text == "<p>index</p>")
      for target in [
        "/../secret.txt", "/%2e%2e/secret.txt", "/icons/../../secret.txt",
        "/icons/%2E%2E/%2E%2E/secret.txt", "/link.txt", "/.hidden.js", "/%252e%252e/secret.txt",
        "/icons//star.svg", "/a/b/c.js", "/icons%2F..%2F..%2Fsecret.txt", "/secret.txt",
      ] {
        let answer = try await web.request("GET", target, session: id)
        #expect(answer.status == 404, "\(target)")
        #expect(!answer.text.contains("secret") || answer.errorCode != nil, "\(target)")
        #expect(isHardened(answer), "\(target)")
      }
    }
  }
}

/// `susi serve --web`: the pages under /web/, and sessions bound to serve keys.
@Suite struct WebServerMountTests {
  @Test func aKeySessionActsAsItsKeyAndEndsWhenTheKeyIsRevoked() async throws {
    try await WebFixture.withMounted { web in
      let page = try await web.request("GET", "/web/")
      #expect(page.status == 200)
      #expect(page.headers["Content-Type"] == "text/html; charset=utf-8")
      #expect(isHardened(page))
      #expect(try await web.request("GET", "/web").headers["Location"] == "/web/")
      #expect(try await web.request("GET", "/web/../Package.swift").status == 404)
      #expect(try await web.request("GET", "/session").status == 401)

      // A key of the default group, issued by the admin through the usual route.
      let issued = try await web.request(
        "POST", "/admin/keys", key: web.secret, body: #"{"groups":["default"]}"#)
      #expect(issued.status == 201)
      let json = try JSONParser.parse(issued.body)
      let key = try #require(json["key"]?.string)
      let keyID = try #require(json["id"]?.string)

      let body = #"{"key":"\#(key)"}"#
      let foreign = try await web.request(
        "POST", "/session", origin: "http://evil.example", body: body)
      #expect(foreign.status == 403)
      #expect(try await web.request("POST", "/session", body: body).status == 403)
      let wrong = try await web.request(
        "POST", "/session", origin: WebFixture.origin, body: #"{"key":"susi_0000"}"#)
      #expect(wrong.status == 401)
      #expect(wrong.headers["Set-Cookie"] == nil)

      let signedIn = try await web.request(
        "POST", "/session", origin: WebFixture.origin, body: body)
      #expect(signedIn.status == 200)
      #expect(!signedIn.text.contains(key))
      #expect(signedIn.headers["Set-Cookie"] == nil)
      let id = try #require(WebFixture.sessionID(signedIn))
      let session = try JSONParser.parse(
        try await web.request("GET", "/session", session: id).body)
      #expect(session["mode"]?.string == "serve")

      #expect(try await web.request("GET", "/state", session: id).status == 200)
      #expect(try await web.request("GET", "/inspector/state?seq=1", session: id).status == 200)
      let intent = #"{"type":"sendMessage","payload":{"query":"hi"}}"#
      let crossSite = try await web.request(
        "POST", "/actions", session: id, origin: "http://evil.example", body: intent)
      #expect(crossSite.errorCode == "bad_origin")
      let sent = try await web.request(
        "POST", "/actions", session: id, origin: WebFixture.origin, body: intent)
      #expect(sent.status == 202)
      // The session holds the key's privileges, not more.
      let admin = try await web.request("GET", "/admin/access", session: id)
      #expect(admin.status == 403)

      let revoked = try await web.request("DELETE", "/admin/keys/\(keyID)", key: web.secret)
      #expect(revoked.status == 200 || revoked.status == 204)
      #expect(try await web.request("GET", "/state", session: id).status == 401)
      #expect(try await web.request("GET", "/session", session: id).status == 401)
    }
  }

  @Test func signingOutEndsAKeySession() async throws {
    try await WebFixture.withMounted { web in
      let signedIn = try await web.request(
        "POST", "/session", origin: WebFixture.origin, body: #"{"key":"\#(web.secret)"}"#)
      let id = try #require(WebFixture.sessionID(signedIn))
      #expect(try await web.request("GET", "/inspector/log", session: id).status == 200)
      let out = try await web.request(
        "DELETE", "/session", session: id, origin: WebFixture.origin)
      #expect(out.status == 204)
      #expect(try await web.request("GET", "/state", session: id).status == 401)
      // Keys still work as before, without any session.
      #expect(try await web.request("GET", "/state", key: web.secret).status == 200)
      #expect(try await web.request("GET", "/inspector/log", key: web.secret).status == 200)
    }
  }

  @Test func oneKeyOpeningManySessionsNeverEndsAnotherKeysSession() async throws {
    try await WebFixture.withMounted { web in
      let issued = try await web.request(
        "POST", "/admin/keys", key: web.secret, body: #"{"groups":["default"]}"#)
      let key = try #require(try JSONParser.parse(issued.body)["key"]?.string)
      let admin = try #require(
        WebFixture.sessionID(
          try await web.request(
            "POST", "/session", origin: WebFixture.origin, body: #"{"key":"\#(web.secret)"}"#)))
      var opened: [String] = []
      for _ in 0..<1001 {
        let answer = try await web.request(
          "POST", "/session", origin: WebFixture.origin, body: #"{"key":"\#(key)"}"#)
        #expect(answer.status == 200)
        if let id = WebFixture.sessionID(answer) { opened.append(id) }
      }
      #expect(try await web.request("GET", "/session", session: admin).status == 200)
      // The key keeps its newest sessions; its oldest ended.
      #expect(try await web.request("GET", "/session", session: opened.last).status == 200)
      #expect(try await web.request("GET", "/session", session: opened[0]).status == 401)
    }
  }

  @Test func whenEveryPlaceIsTakenByOthersANewSignInIsRefusedAndNoneEnds() async throws {
    try await WebFixture.withMounted { web in
      var first: [String] = []
      var keys: [String] = []
      for _ in 0..<11 {
        let issued = try await web.request(
          "POST", "/admin/keys", key: web.secret, body: #"{"groups":["default"]}"#)
        keys.append(try #require(try JSONParser.parse(issued.body)["key"]?.string))
      }
      // Ten keys with 100 sessions each take every place.
      for key in keys.prefix(10) {
        for n in 0..<100 {
          let answer = try await web.request(
            "POST", "/session", origin: WebFixture.origin, body: #"{"key":"\#(key)"}"#)
          if n == 0, let id = WebFixture.sessionID(answer) { first.append(id) }
        }
      }
      let refused = try await web.request(
        "POST", "/session", origin: WebFixture.origin, body: #"{"key":"\#(keys[10])"}"#)
      #expect(refused.status == 503 && refused.errorCode == "too_many_sessions")
      #expect(first.count == 10)
      for id in first {
        #expect(try await web.request("GET", "/session", session: id).status == 200)
      }
    }
  }
}
