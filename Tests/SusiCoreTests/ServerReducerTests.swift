import SusiCore
import SusiCoreTesting
import Testing

@Suite struct ServerReducerTests {
  @Test func acceptsTheEmbeddedServer() {
    var t = ReducerTester()
    t.send(.setServer(.init(url: "embedded")), results: [.serverChanged(.init(url: "embedded"))])
  }

  @Test(arguments: [
    ("http://localhost:4000", "http://localhost:4000"),
    ("HTTPS://API.Susi.AI/", "https://api.susi.ai"),
    ("http://Example.com:8080/Base/Path///", "http://example.com:8080/Base/Path"),
    ("  https://susi.example\n", "https://susi.example"),
    ("http://127.0.0.1:1", "http://127.0.0.1:1"),
    ("http://[::1]:65535/", "http://[::1]:65535"),
    ("http://[FE80::1]", "http://[fe80::1]"),
    (" embedded ", "embedded"),
  ])
  func asksToSwitchToTheNormalisedURL(input: String, normalised: String) {
    var t = ReducerTester()
    t.prepare { $0 = Fixture.populated() }
    t.send(.setServer(.init(url: input)), results: [.serverChanged(.init(url: normalised))])
  }

  @Test(arguments: [
    "", " ", "Embedded", "localhost:4000", "ftp://host", "file:///etc/passwd", "http://",
    "https://", "http:///path", "http://user:pw@host", "http://user@host", "http://host?x=1",
    "http://host/?", "http://host#top", "http://host:0", "http://host:65536", "http://host:99999",
    "http://host:", "http://host:8o", "http://host:-1", "http://ho st", "http://host/pa th",
    "http://[::1", "http://[::1]x", "http://[]", "http://[zz]", "http://a:b:80", "http://ho<st",
    "http://host\u{7F}", "http://host\u{0}",
  ])
  func rejectsAnUnacceptableURLAndChangesNothing(url: String) {
    var t = ReducerTester()
    t.prepare { $0 = Fixture.populated() }
    t.send(
      .setServer(.init(url: url)),
      rejected: "'\(url)' is not a server URL: use http(s)://host[:port][/path] or 'embedded'")
  }

  @Test func changingServerForgetsWhatCameFromTheOldServer() {
    var t = ReducerTester()
    t.prepare { $0 = Fixture.populated(server: "http://old.example:4000") }
    let asked = t.send(
      .setServer(.init(url: "https://New.Example/")),
      results: [.serverChanged(.init(url: "https://new.example"))])
    t.receive(
      .serverChanged(.init(url: "https://new.example")), cause: asked,
      {
        $0.server = "https://new.example"
        $0.session = nil
        $0.groups = []
        $0.skills = [:]
        $0.userRatings = [:]
        $0.history = []
        $0.historyRemaining = nil
        $0.lastErrors = [:]
      },
      effects: [
        .cancel(seq: 90),
        .logout(
          server: "http://old.example:4000",
          reason: "switched to another server; \(Fixture.email) was logged out"),
      ])
  }

  @Test func changingToEmbeddedForgetsTheRemoteServersData() {
    var t = ReducerTester()
    t.prepare { $0 = Fixture.populated(server: "http://old.example:4000") }
    t.receive(
      .serverChanged(.init(url: "embedded")), cause: nil,
      {
        $0.server = "embedded"
        $0.session = nil
        $0.groups = []
        $0.skills = [:]
        $0.userRatings = [:]
        $0.history = []
        $0.historyRemaining = nil
        $0.lastErrors = [:]
      },
      effects: [
        .cancel(seq: 90),
        .logout(
          server: "http://old.example:4000",
          reason: "switched to another server; \(Fixture.email) was logged out"),
      ])
  }

  @Test func changingToTheSameServerChangesNothing() {
    var t = ReducerTester()
    t.prepare { $0 = Fixture.populated(server: "http://old.example:4000") }
    t.receive(.serverChanged(.init(url: "http://old.example:4000")), cause: 1)
  }

  @Test func setServerIsNotARequestInFlight() {
    var t = ReducerTester()
    let first = t.send(
      .setServer(.init(url: "http://a.example")),
      results: [.serverChanged(.init(url: "http://a.example"))])
    // A second switch does not cancel the first: switching is not a server request.
    t.send(
      .setServer(.init(url: "http://b.example")),
      results: [.serverChanged(.init(url: "http://b.example"))])
    t.receive(.serverChanged(.init(url: "http://a.example")), cause: first) {
      $0.server = "http://a.example"
    }
  }
}
