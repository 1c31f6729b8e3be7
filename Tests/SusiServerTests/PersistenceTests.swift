import Foundation
import Glibc
import SusiClock
import SusiHTTPServer
import SusiJSON
import Testing

@testable import SusiServer

@Suite struct PersistenceTests {
  func mode(_ url: URL) -> mode_t {
    var info = stat()
    stat(url.path, &info)
    return info.st_mode & 0o777
  }

  @Test func accountsTokensRatingsAndSettingsSurviveARestart() throws {
    let state = try temporaryDirectory().appendingPathComponent("server")
    let clock = ManualTimeSource(millisecondsSince1970: TestServer.start)
    let first = try TestServer(stateDirectory: state, clock: clock)
    let token = try first.login()
    _ = try first.json(
      "/aaa/changeUserSettings.json", [("theme", "dark"), ("access_token", token)])
    _ = try first.json(
      "/cms/fiveStarRateSkill.json",
      [("group", "Knowledge"), ("skill", "Synonyms"), ("stars", "4"), ("access_token", token)])

    let second = try TestServer(stateDirectory: state, clock: clock)
    #expect(
      try second.json("/aaa/login.json", [("checkLogin", "true"), ("access_token", token)])[
        "loggedIn"] == true)
    #expect(
      try second.json("/aaa/listUserSettings.json", [("access_token", token)])["settings"] == [
        "theme": "dark"
      ])
    let rating = try second.json(
      "/cms/getRatingByUser.json",
      [("group", "Knowledge"), ("skill", "Synonyms"), ("access_token", token)])
    #expect(rating["ratings"]?["stars"] == 4)
    let login = second.send(
      "/aaa/login.json",
      [("login", "user@example.com"), ("password", "Secret#123"), ("type", "access-token")])
    #expect(login.status == 200)
  }

  @Test func filesAreOwnerOnlyAndHoldNoSecrets() throws {
    let state = try temporaryDirectory().appendingPathComponent("server")
    let server = try TestServer(stateDirectory: state)
    let token = try server.login(password: "Canary#Pass1")
    _ = try server.json(
      "/cms/fiveStarRateSkill.json",
      [("group", "Knowledge"), ("skill", "Synonyms"), ("stars", "4"), ("access_token", token)])
    #expect(mode(state) == 0o700)
    for name in ["accounts.json", "tokens.json", "ratings.json"] {
      let url = state.appendingPathComponent(name)
      #expect(mode(url) == 0o600, "\(name)")
      let text = try String(contentsOf: url, encoding: .utf8)
      #expect(!text.contains("Canary#Pass1"))
      #expect(!text.contains(token))
    }
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: state.path).filter {
      $0.hasSuffix(".tmp")
    }
    #expect(leftovers.isEmpty)
  }

  @Test func atomicWritesCreateFilesOwnerOnlyEvenUnderAPermissiveUmask() throws {
    let folder = try temporaryDirectory()
    let previous = umask(0)
    defer { umask(previous) }
    let url = folder.appendingPathComponent("secret.json")
    try AtomicFile.write(Array("one".utf8), to: url)
    #expect(mode(url) == 0o600)
    try AtomicFile.write(Array("two".utf8), to: url)
    #expect(try String(contentsOf: url, encoding: .utf8) == "two")
    #expect(mode(url) == 0o600)
  }

  @Test func damagedStateIsAClearErrorNotAReset() throws {
    let state = try temporaryDirectory()
    try Data("{\"version\":1,\"accounts\":[{\"email\":".utf8).write(
      to: state.appendingPathComponent("accounts.json"))
    #expect {
      _ = try TestServer(stateDirectory: state)
    } throws: { error in
      "\(error)".contains("accounts.json") && "\(error)".contains("not valid JSON")
    }
    try Data("{\"version\":9,\"tokens\":[]}".utf8).write(
      to: state.appendingPathComponent("accounts.json"))
    #expect {
      _ = try TestServer(stateDirectory: state)
    } throws: { error in "\(error)".contains("format version 9") }
  }

  @Test func stateDirectoryThatIsAFileIsAClearError() throws {
    let file = try temporaryDirectory().appendingPathComponent("state")
    try Data("x".utf8).write(to: file)
    #expect {
      _ = try TestServer(stateDirectory: file)
    } throws: { error in "\(error)".contains("not a directory") }
  }

  @Test func expiredTokensAreDroppedWhenSaving() async throws {
    let state = try temporaryDirectory()
    let server = try TestServer(stateDirectory: state)
    _ = try server.login()
    _ = server.send(
      "/aaa/login.json",
      [
        ("login", "user@example.com"), ("password", "Secret#123"), ("type", "access-token"),
        ("valid_seconds", "10"),
      ])
    await server.clock.advance(by: .seconds(11))
    _ = try server.json(
      "/aaa/login.json",
      [("login", "user@example.com"), ("password", "Secret#123"), ("type", "access-token")])
    let document = try JSONParser.parse(
      Array(Data(contentsOf: state.appendingPathComponent("tokens.json"))))
    #expect(document["tokens"]?.array?.count == 2)
  }

  @Test func defaultStateDirectoryFollowsXDG() {
    #expect(
      ServerConfiguration.defaultStateDirectory(environment: [
        "XDG_STATE_HOME": "/x/state", "HOME": "/home/a",
      ]).path
        == "/x/state/susi/server")
    #expect(
      ServerConfiguration.defaultStateDirectory(environment: [
        "XDG_STATE_HOME": "relative", "HOME": "/home/a",
      ]).path
        == "/home/a/.local/state/susi/server")
    #expect(
      ServerConfiguration.defaultStateDirectory(environment: ["HOME": "/home/a"]).path
        == "/home/a/.local/state/susi/server")
  }
}
