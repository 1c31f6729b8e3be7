import Foundation
import SusiCore
import SusiHTTPServer
import SusiHTTPTypes
import SusiJSON
import SusiStore
import SusiWeb
import Synchronization
import Testing

/// `susi web`'s access model, through the handler: a link's token is traded once for a session
/// id the page sends in a header (never a cookie), nothing but the page's files is answered
/// without one, changes need the page's own origin, and every answer is hardened.
@Suite struct WebServerAccessTests {
  @Test func withoutASessionOnlyThePagesFilesAreAnswered() async throws {
    try await WebFixture.withLocal { web in
      for target in ["/", "/?token=wrong", "/?token=\(web.secret)", "/app.js"] {
        let answer = try await web.request("GET", target)
        #expect(answer.status == 200, "\(target)")
        #expect(answer.headers["Set-Cookie"] == nil, "\(target)")
        #expect(!answer.text.contains(web.secret), "\(target)")
      }
      for target in ["/state", "/session", "/events", "/inspector/log", "/images?url=x"] {
        let answer = try await web.request("GET", target)
        #expect(answer.status == 401, "\(target)")
        #expect(answer.errorCode == "unauthorized", "\(target)")
      }
      // A made-up id, or the token itself as one, is no session; nor is the old cookie.
      for id in ["made-up", web.secret] {
        #expect(try await web.request("GET", "/state", session: id).status == 401)
      }
      let id = try await web.signIn()
      #expect(
        try await web.request("GET", "/state", headers: [("Cookie", "susi_session=\(id)")]).status
          == 401)
      // The token on another path signs nothing in.
      #expect(try await web.request("GET", "/state?token=\(web.secret)").status == 401)
    }
  }

  @Test func aLinkSignsInOnceAndOnlyFromThePageItself() async throws {
    try await WebFixture.withLocal { web in
      let body = #"{"token":"\#(web.secret)"}"#
      for wrong in ["", "x", web.secret + "x"] {
        let answer = try await web.request(
          "POST", "/session", origin: WebFixture.origin, body: #"{"token":"\#(wrong)"}"#)
        #expect(answer.status == 401 && answer.errorCode == "link_used", "\(wrong)")
      }
      // From another origin, or none: refused, and the token is not used up.
      for origin in [nil, "http://127.0.0.1:4243", "http://evil.example"] {
        let answer = try await web.request("POST", "/session", origin: origin, body: body)
        #expect(answer.status == 403, "\(origin ?? "no Origin")")
      }
      let answer = try await web.request("POST", "/session", origin: WebFixture.origin, body: body)
      #expect(answer.status == 200)
      #expect(answer.headers["Set-Cookie"] == nil)
      let id = try #require(WebFixture.sessionID(answer))
      #expect(id.count == 43 && id != web.secret)
      // Good once: the same link again is refused.
      let again = try await web.request("POST", "/session", origin: WebFixture.origin, body: body)
      #expect(again.status == 401 && again.errorCode == "link_used")

      let session = try await web.request("GET", "/session", session: id)
      #expect(session.status == 200)
      let json = try JSONParser.parse(session.body)
      #expect(json["mode"]?.string == "web")
      #expect(json["session"] == nil)
      let privileges = (json["privileges"]?.array ?? []).compactMap(\.string)
      #expect(privileges.contains("sendMessage") && privileges.contains("events.read"))
      #expect(!privileges.contains("keys.manage") && !privileges.contains("groups.manage"))
      // A new link (Enter in the terminal) ends the unused one before it.
      let first = try #require(web.links).make()
      let second = try #require(web.links).make()
      #expect(
        try await web.request(
          "POST", "/session", origin: WebFixture.origin, body: #"{"token":"\#(first)"}"#
        ).status == 401)
      #expect(try await web.redeem(second) != id)
    }
  }

  @Test func aLinkExpiresAfterItsLifetime() async throws {
    let clock = Mutex(1000.0)
    let links = StartLinks(lifetime: 600, now: { clock.withLock { $0 } })
    try await WebFixture.withLocal(links: links) { web in
      clock.withLock { $0 += 601 }
      let answer = try await web.request(
        "POST", "/session", origin: WebFixture.origin, body: #"{"token":"\#(web.secret)"}"#)
      #expect(answer.status == 401)
      let fresh = links.make()
      clock.withLock { $0 += 599 }
      _ = try await web.redeem(fresh)
    }
  }

  @Test func aRequestForAnotherHostNameIsRefusedEvenWithASession() async throws {
    try await WebFixture.withLocal { web in
      let id = try await web.signIn()
      // A rebound name (evil.example resolving to 127.0.0.1), no Host, or another port.
      for host in ["evil.example:4242", "127.0.0.1:4243", "127.0.0.1", nil] {
        var headers: HTTPHeaders = ["X-Susi-Session": id]
        if let host { headers.add("Host", host) }
        for target in ["/", "/state", "/?token=\(web.secret)", "/inspector/log"] {
          let response = await web.handler.handle(
            HTTPRequest(method: "GET", target: target, headers: headers))
          #expect(response.status == 421, "\(host ?? "no Host") \(target)")
          #expect(response.headers["Set-Cookie"] == nil)
        }
      }
      for host in ["127.0.0.1:4242", "LOCALHOST:4242", "[::1]:4242"] {
        let response = await web.handler.handle(
          HTTPRequest(
            method: "GET", target: "/state",
            headers: ["X-Susi-Session": id, "Host": host]))
        #expect(response.status == 200, "\(host)")
      }
    }
  }

  @Test func aSessionCannotAdministerAccess() async throws {
    try await WebFixture.withLocal { web in
      let id = try await web.signIn()
      let before = await web.store.lastSeq
      // As on serve, access changes never go through /actions; the /admin routes need
      // keys.manage or groups.manage, which no browser session holds.
      let action = try await web.post(
        #"{"type":"createAccessGroup","payload":{"group":"mine"}}"#, session: id)
      #expect(action.errorCode == "admin_only")
      let group = try await web.request(
        "POST", "/admin/groups", session: id, origin: WebFixture.origin, body: #"{"name":"mine"}"#)
      #expect(group.status == 403)
      let keys = try await web.request(
        "POST", "/admin/keys", session: id, origin: WebFixture.origin,
        body: #"{"groups":["admin"]}"#)
      #expect(keys.status == 403)
      #expect(await web.store.lastSeq == before)
    }
  }

  @Test func aCrossOriginChangeIsRefusedAndAppendsNothing() async throws {
    try await WebFixture.withLocal { web in
      let id = try await web.signIn()
      let before = await web.store.lastSeq
      let intent = #"{"type":"sendMessage","payload":{"query":"hi"}}"#
      let origins: [String?] = [
        nil, "null", "http://evil.example", "http://127.0.0.1:4243", "https://127.0.0.1:4242",
        "http://127.0.0.1:4242.evil.example",
      ]
      for origin in origins {
        let answer = try await web.request(
          "POST", "/actions", session: id, origin: origin, body: intent)
        #expect(answer.status == 403, "\(origin ?? "no Origin")")
        #expect(answer.errorCode == "bad_origin", "\(origin ?? "no Origin")")
      }
      let logout = try await web.request(
        "DELETE", "/session", session: id, origin: "http://evil.example")
      #expect(logout.status == 403)
      #expect(await web.store.lastSeq == before)
      #expect(try await web.request("GET", "/session", session: id).status == 200)

      for origin in [WebFixture.origin, "http://localhost:4242"] {
        let answer = try await web.request(
          "POST", "/actions", session: id, origin: origin, body: intent)
        #expect(answer.status == 202, "\(origin)")
      }
      #expect(await web.store.lastSeq >= before + 2)
    }
  }

  @Test func signingOutEndsTheSession() async throws {
    try await WebFixture.withLocal { web in
      let id = try await web.signIn()
      let answer = try await web.request(
        "DELETE", "/session", session: id, origin: WebFixture.origin)
      #expect(answer.status == 204)
      #expect(try await web.request("GET", "/state", session: id).status == 401)
    }
  }

  @Test func anEventStreamFollowsTheLogAndEndsWithItsSession() async throws {
    try await WebFixture.withLocal { web in
      let id = try await web.signIn()
      let other = try await web.signIn()
      let request = HTTPRequest(
        method: "GET", target: "/events/stream?after=0",
        headers: ["X-Susi-Session": id, "Host": "127.0.0.1:4242"])
      let response = await web.handler.handle(request)
      #expect(response.status == 200)
      #expect(response.headers["Content-Type"] == "text/event-stream")
      let stream = try #require(response.bodyStream)
      let (pieces, sink) = AsyncStream.makeStream(of: String.self)
      let streaming = Task {
        try? await stream.produce(
          HTTPBodyWriter { bytes in sink.yield(String(decoding: bytes, as: UTF8.self)) })
        sink.finish()
      }
      // Every wait below ends: the stream is cancelled after 120 s at the latest (a loaded
      // machine can take many seconds for the chat).
      let timedOut = Mutex(false)
      let watchdog = Task {
        try await Task.sleep(for: .seconds(120))
        timedOut.withLock { $0 = true }
        streaming.cancel()
      }
      try await web.post(#"{"type":"sendMessage","payload":{"query":"hi"}}"#, session: other)
      var received = ""
      for await piece in pieces {
        received += piece
        if received.contains("messageReceived") { break }
      }
      #expect(received.contains("id: 1\n"))
      #expect(received.contains("messageReceived"))
      // Signing out ends the stream at its next event, which it does not send.
      let out = try await web.request(
        "DELETE", "/session", session: id, origin: WebFixture.origin)
      #expect(out.status == 204)
      try await web.post(#"{"type":"sendMessage","payload":{"query":"again"}}"#, session: other)
      for await piece in pieces { received += piece }
      watchdog.cancel()
      #expect(!timedOut.withLock { $0 })
      #expect(!received.contains("again"))
    }
  }

  @Test func everyAnswerCarriesTheSecurityHeaders() async throws {
    try await WebFixture.withLocal { web in
      let id = try await web.signIn()
      let evil = [("Origin", "http://evil.example")]
      let requests: [(String, String, String?, String?)] = [
        ("GET", "/?token=\(web.secret)", nil, nil),
        ("POST", "/session", nil, WebFixture.origin),
        ("GET", "/", nil, nil),
        ("GET", "/", id, nil),
        ("GET", "/app.css", id, nil),
        ("GET", "/state", id, nil),
        ("GET", "/state", nil, nil),
        ("GET", "/events?after=0", id, nil),
        ("GET", "/session", id, nil),
        ("GET", "/inspector/state?seq=0", id, nil),
        ("GET", "/inspector/state?seq=-1", id, nil),
        ("GET", "/inspector/log", id, nil),
        ("GET", "/images?url=http%3A%2F%2Fexample.org%2Fa.png", id, nil),
        ("GET", "/nothing-here", id, nil),
        ("GET", "/missing.js", id, nil),
        ("PUT", "/state", id, WebFixture.origin),
        ("POST", "/actions", id, "http://evil.example"),
        ("POST", "/actions", id, WebFixture.origin),
      ]
      for (method, target, cookie, origin) in requests {
        let answer = try await web.request(
          method, target, session: cookie, origin: origin, body: method == "GET" ? nil : "{",
          headers: origin == nil ? evil : [])
        #expect(isHardened(answer), "\(method) \(target) -> \(answer.status)")
      }
    }
  }
}
