import Foundation
import SusiClock
import SusiCrypto
import SusiHTTPServer
import SusiHTTPTypes
import SusiJSON
import Synchronization
import Testing

@testable import SusiServer

/// Brute force and password storage: lockouts keyed on the peer address and on the account,
/// forwarding headers only from a trusted proxy, and slow salted hashes that upgrade old ones.
@Suite struct LoginHardeningTests {
  let email = "user@example.com"
  let password = "Secret#123"

  func signedUp(_ configure: (inout ServerConfiguration) -> Void = { _ in }) throws -> TestServer {
    let server = try TestServer(configure: configure)
    _ = try server.json("/aaa/signup.json", [("signup", email), ("password", password)])
    return server
  }

  func attempt(
    _ server: TestServer, password: String, headers: [(String, String)] = [],
    from address: String = "203.0.113.7"
  ) -> Int {
    server.send(
      "/aaa/login.json", [("login", email), ("password", password), ("type", "access-token")],
      headers: headers, remoteAddress: address
    ).status
  }

  @Test func rotatingXRealIPDoesNotEscapeTheLockout() throws {
    let server = try signedUp()
    for guess in 0..<50 {
      _ = attempt(
        server, password: "guess\(guess)", headers: [("X-Real-IP", "198.51.100.\(guess)")])
    }
    #expect(attempt(server, password: password, headers: [("X-Real-IP", "192.0.2.200")]) == 403)
  }

  @Test func rotatingPeerAddressesStillLocksTheAccount() async throws {
    let server = try signedUp()
    var refused = 0
    for guess in 0..<50 {
      if attempt(server, password: "guess\(guess)", from: "198.51.100.\(guess)") == 403 {
        refused += 1
      }
    }
    #expect(refused == 39)
    let locked = server.send(
      "/aaa/login.json", [("login", email), ("password", password), ("type", "access-token")],
      remoteAddress: "192.0.2.1")
    #expect(locked.status == 403)
    #expect(locked.title == "Error 403 Too many invalid login attempts. Try again in 60 seconds")
    await server.clock.advance(by: .seconds(60))
    #expect(attempt(server, password: password, from: "192.0.2.1") == 200)
  }

  @Test func aLockedAddressCannotTryOtherAccounts() throws {
    let server = try signedUp()
    _ = try server.json(
      "/aaa/signup.json", [("signup", "other@example.com"), ("password", password)])
    for guess in 0..<11 { _ = attempt(server, password: "guess\(guess)") }
    let other = server.send(
      "/aaa/login.json",
      [("login", "other@example.com"), ("password", password), ("type", "access-token")])
    #expect(other.status == 403)
  }

  @Test func aTrustedProxyNamesTheClientForTheLockout() throws {
    let server = try signedUp { $0.trustedProxies = ["10.0.0.2"] }
    _ = try server.json(
      "/aaa/signup.json", [("signup", "other@example.com"), ("password", password)])
    for guess in 0..<11 {
      _ = attempt(
        server, password: "guess\(guess)", headers: [("X-Real-IP", "198.51.100.1")],
        from: "10.0.0.2")
    }
    let login = [("login", "other@example.com"), ("password", password), ("type", "access-token")]
    // The guessing client is locked out; another client behind the same proxy is not.
    #expect(
      server.send(
        "/aaa/login.json", login, headers: [("X-Real-IP", "198.51.100.1")],
        remoteAddress: "10.0.0.2"
      )
      .status == 403)
    #expect(
      server.send(
        "/aaa/login.json", login, headers: [("X-Real-IP", "198.51.100.2")],
        remoteAddress: "10.0.0.2"
      )
      .status == 200)
  }

  @Test func spoofedHeadersDoNotReachAnotherAnonymousMemory() throws {
    let server = try TestServer()
    let browser = [("User-Agent", "Mozilla/5.0"), ("Accept-Language", "en-US")]
    _ = try server.json("/susi/chat.json", [("q", "my secret is 42")], headers: browser)
    let own = try server.json("/susi/memory.json", headers: browser)
    #expect(own["cognitions"]?.array?.count == 1)
    let spoofed = try server.json(
      "/susi/memory.json", headers: browser + [("X-Real-IP", "203.0.113.7")],
      remoteAddress: "198.51.100.66")
    #expect(spoofed["cognitions"]?.array?.isEmpty == true)
  }

  @Test func theDefaultCostIsTheDocumentedOne() {
    #expect(ServerConfiguration().passwordIterations == 600_000)
    #expect(PasswordHasher.defaultIterations == 600_000)
  }

  @Test func storesASaltedPBKDF2HashWithItsCost() throws {
    let server = try signedUp()
    let account = try #require(server.handler.context.state.withLock { $0.accounts.account(email) })
    #expect(account.passwordHash.hasPrefix("pbkdf2-sha256:\(TestServer.passwordIterations):"))
    #expect(!account.passwordHash.contains(password))
    // RFC 7914's PBKDF2-HMAC-SHA256 test vector: P="passwd", S="salt", c=1, 64 bytes.
    let vector = ByteEncoding.hex(
      Digest.pbkdf2SHA256(
        password: Array("passwd".utf8), salt: Array("salt".utf8), iterations: 1, length: 64))
    #expect(vector.hasPrefix("55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"))
  }

  @Test func anOldFormatHashUpgradesAtTheNextLogin() throws {
    let folder = try temporaryDirectory()
    let server = try TestServer(stateDirectory: folder)
    _ = try server.json("/aaa/signup.json", [("signup", email), ("password", password)])
    // What an older version saved: one HMAC-SHA256 of the password under the salt. Saved to the
    // file, which every change reads afresh (another process may share the state directory).
    let legacy = PasswordHasher.legacyHash(password, salt: "0123abcd")
    let context = server.handler.context
    server.handler.context.state.withLock { state in
      var account = state.accounts.account(email)!
      account.salt = "0123abcd"
      account.passwordHash = legacy
      state.accounts.put(account)
      try? context.store?.saveAccounts(state.accounts)
    }
    #expect(attempt(server, password: "wrong") == 401)
    #expect(
      server.handler.context.state.withLock { $0.accounts.account(email)?.passwordHash } == legacy)
    #expect(attempt(server, password: password) == 200)
    let upgraded = try #require(
      server.handler.context.state.withLock { $0.accounts.account(email) })
    #expect(upgraded.passwordHash.hasPrefix("pbkdf2-sha256:\(TestServer.passwordIterations):"))
    #expect(upgraded.salt != "0123abcd")
    let saved = try String(
      contentsOf: folder.appendingPathComponent("accounts.json"), encoding: .utf8)
    #expect(saved.contains(upgraded.passwordHash))
    #expect(!saved.contains(legacy))
    #expect(attempt(server, password: password) == 200)
  }

  @Test func aHashOfAnotherCostUpgradesToTheConfiguredOne() throws {
    let server = try signedUp()
    let salt = "feedface"
    server.handler.context.state.withLock { state in
      var account = state.accounts.account(email)!
      account.salt = salt
      account.passwordHash = PasswordHasher.hash(password, salt: salt, iterations: 10)
      state.accounts.put(account)
    }
    #expect(attempt(server, password: password) == 200)
    let hash = server.handler.context.state.withLock { $0.accounts.account(email)?.passwordHash }
    #expect(hash?.hasPrefix("pbkdf2-sha256:\(TestServer.passwordIterations):") == true)
  }
}
