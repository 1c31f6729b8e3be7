import Foundation
import SusiClock
import SusiHTTPServer
import SusiHTTPTypes
import SusiJSON
import Testing

@testable import SusiServer

@Suite struct LoginTests {
  let email = "user@example.com"
  let password = "Secret#123"

  func signedUp() throws -> TestServer {
    let server = try TestServer()
    _ = try server.json("/aaa/signup.json", [("signup", email), ("password", password)])
    return server
  }

  func login(_ server: TestServer, _ extra: [(String, String)] = []) -> (Int, JSONObject?) {
    let response = server.send(
      "/aaa/login.json",
      [("login", email), ("password", password), ("type", "access-token")] + extra)
    return (response.status, try? JSONParser.parse(response.body).object)
  }

  @Test func issuesAnAccessTokenInTheRealShape() throws {
    let server = try signedUp()
    let (status, reply) = login(server)
    #expect(status == 200)
    let object = try #require(reply)
    #expect(
      object.keys == ["accepted", "valid_seconds", "uuid", "access_token", "message", "session"])
    #expect(object["valid_seconds"] == 604_800)
    #expect(object["uuid"] == "b58996c504c5638798eb6b511e6f49af")
    #expect(object["message"] == "You are logged in as user@example.com")
    let token = try #require(object["access_token"]?.string)
    #expect(token.count == 30)
    #expect(token.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
    #expect(object["session"]?["identity"]?["anonymous"] == true)
  }

  @Test func tokenIdentifiesTheCallerUntilItExpires() async throws {
    let server = try signedUp()
    let token = try #require(login(server, [("valid_seconds", "60")]).1?["access_token"]?.string)
    let check = try server.json(
      "/aaa/login.json", [("checkLogin", "true"), ("access_token", token)])
    #expect(check.keys == ["loggedIn", "accepted", "message", "session"])
    #expect(check["loggedIn"] == true)
    #expect(
      check["session"]?["identity"] == [
        "type": "email", "name": "user@example.com", "anonymous": false,
      ])
    await server.clock.advance(by: .seconds(61))
    let expired = try server.json(
      "/aaa/login.json", [("checkLogin", "true"), ("access_token", token)])
    #expect(expired["loggedIn"] == false)
    #expect(expired["accepted"] == false)
    #expect(expired["message"] == "Not logged in")
    #expect(expired["session"]?["identity"]?["type"] == "host")
  }

  /// The real server makes `-1` a token that never expires; here no token outlives a year.
  @Test func validSecondsAtMostAYearAndInvalidValues() async throws {
    let server = try signedUp()
    let year = 31_536_000
    let forever = login(server, [("valid_seconds", "-1")])
    #expect(forever.1?["valid_seconds"] == .int(year))
    let long = login(server, [("valid_seconds", "9223372036854775807")])
    #expect(long.1?["valid_seconds"] == .int(year))
    let token = try #require(forever.1?["access_token"]?.string)
    func loggedIn() throws -> Bool {
      try server.json("/aaa/login.json", [("checkLogin", "1"), ("access_token", token)])[
        "loggedIn"] == true
    }
    await server.clock.advance(by: .seconds(year - 1))
    #expect(try loggedIn())
    await server.clock.advance(by: .seconds(2))
    #expect(try !loggedIn())
    for bad in ["0", "-2", "week"] {
      let response = server.send(
        "/aaa/login.json",
        [
          ("login", email), ("password", password), ("type", "access-token"),
          ("valid_seconds", bad),
        ])
      #expect(response.status == 422)
      #expect(response.title == "Error 422 Invalid value for 'valid_seconds'")
    }
  }

  @Test func credentialErrors() throws {
    let server = try signedUp()
    let unknown = server.send(
      "/aaa/login.json",
      [("login", "nobody@example.com"), ("password", password), ("type", "access-token")])
    #expect(unknown.status == 401)
    #expect(unknown.title == "Error 401 Invalid credentials")
    // The real server answers 422 here: a different status would tell which accounts exist.
    let wrong = server.send(
      "/aaa/login.json", [("login", email), ("password", "Wrong#123"), ("type", "access-token")])
    #expect(wrong.status == 401)
    #expect(wrong.title == "Error 401 Invalid credentials")
    let type = server.send(
      "/aaa/login.json", [("login", email), ("password", password), ("type", "access_token")])
    #expect(type.status == 400)
    #expect(type.title == "Error 400 Invalid type")
    let missing = server.send("/aaa/login.json", [("login", email), ("password", password)])
    #expect(missing.status == 400)
    #expect(missing.title == "Error 400 Bad login parameters.")
  }

  @Test func tooManyBadLoginsLockTheHostOut() async throws {
    let server = try signedUp()
    for _ in 0..<11 {
      _ = server.send(
        "/aaa/login.json", [("login", email), ("password", "nope"), ("type", "access-token")])
      await server.clock.advance(by: .seconds(1))
    }
    let locked = server.send(
      "/aaa/login.json", [("login", email), ("password", password), ("type", "access-token")])
    #expect(locked.status == 403)
    #expect(locked.title == "Error 403 Too many invalid login attempts. Try again in 49 seconds")
    await server.clock.advance(by: .seconds(50))
    #expect(login(server).0 == 200)
  }

  /// On loopback every local user has the same address: one user's failed guesses lock out
  /// that user only.
  @Test func failedLoginsOnLoopbackLockOutOnlyThatLocalUser() async throws {
    let server = try signedUp()
    for index in 0..<11 {
      _ = server.send(
        "/aaa/login.json",
        [
          ("login", "stranger\(index)@example.com"), ("password", "nope"), ("type", "access-token"),
        ],
        remoteAddress: "127.0.0.1", loopbackUserID: 1001)
    }
    func status(_ user: UInt32) -> Int {
      server.send(
        "/aaa/login.json", [("login", email), ("password", password), ("type", "access-token")],
        remoteAddress: "127.0.0.1", loopbackUserID: user
      ).status
    }
    #expect(status(1001) == 403)
    #expect(status(1000) == 200)
  }

  /// Without mail, a signup must say that an address is taken; one caller hears it at most ten
  /// times a minute, so the accounts cannot be listed that way.
  @Test func signupsOfTakenAddressesAreLimitedPerCaller() async throws {
    let server = try signedUp()
    for _ in 0..<11 {
      let taken = server.send("/aaa/signup.json", [("signup", email), ("password", password)])
      #expect(taken.status == 422)
    }
    let locked = server.send(
      "/aaa/signup.json", [("signup", "new@example.com"), ("password", password)])
    #expect(locked.status == 403)
    let elsewhere = server.send(
      "/aaa/signup.json", [("signup", "new@example.com"), ("password", password)],
      remoteAddress: "198.51.100.9")
    #expect(elsewhere.status == 200)
    await server.clock.advance(by: .seconds(61))
    #expect(
      server.send("/aaa/signup.json", [("signup", "other@example.com"), ("password", password)])
        .status == 200)
  }

  @Test func loginCaptchaWhenConfigured() throws {
    let server = try TestServer { $0.loginCaptcha = true }
    _ = try server.json("/aaa/signup.json", [("signup", email), ("password", password)])
    #expect(login(server).0 == 200)
    _ = server.send(
      "/aaa/login.json", [("login", email), ("password", "nope"), ("type", "access-token")])
    let (status, reply) = login(server)
    #expect(status == 200)
    #expect(reply?["accepted"] == false)
    #expect(reply?["message"] == "Please verify recaptcha")
    #expect(login(server, [("g-recaptcha-response", "anything")]).1?["accepted"] == true)
  }

  /// The real server never revokes a token at logout; here it stops working, and another
  /// token of the same account does not.
  @Test func logoutRevokesTheTokenItIsGiven() throws {
    let server = try signedUp()
    let token = try #require(login(server).1?["access_token"]?.string)
    let other = try #require(login(server).1?["access_token"]?.string)
    let missing = server.send("/aaa/login.json", [("logout", "true")])
    #expect(missing.status == 401)
    #expect(missing.title == "Error 401 Unauthorized")
    let bogus = try server.json("/aaa/login.json", [("logout", "true"), ("access_token", "bogus")])
    #expect(bogus["message"] == "Logout successful")
    _ = try server.json("/aaa/login.json", [("logout", "true"), ("access_token", token)])
    func loggedIn(_ token: String) throws -> Bool {
      try server.json("/aaa/login.json", [("checkLogin", "true"), ("access_token", token)])[
        "loggedIn"] == true
    }
    #expect(try !loggedIn(token))
    #expect(try loggedIn(other))
  }

  @Test func deleteRemovesTheAccount() throws {
    let server = try signedUp()
    let token = try #require(login(server).1?["access_token"]?.string)
    #expect(
      server.send("/aaa/login.json", [("delete", "true"), ("access_token", "bad")]).status == 401)
    let deleted = try server.json("/aaa/login.json", [("delete", "true"), ("access_token", token)])
    #expect(deleted["message"] == "Account deletion successful")
    #expect(login(server).0 == 401)
  }

  @Test func badTokensAreAnonymousNotErrors() throws {
    let server = try TestServer()
    let reply = try server.json("/cms/getGroups.json", [("access_token", "not-a-token")])
    #expect(reply["session"]?["identity"]?["anonymous"] == true)
  }

  @Test func tokensAreNeverReadFromHeaders() throws {
    let server = try signedUp()
    let token = try #require(login(server).1?["access_token"]?.string)
    let reply = try server.json(
      "/aaa/login.json", [("checkLogin", "true")],
      headers: [("Authorization", "Bearer \(token)"), ("access_token", token)])
    #expect(reply["loggedIn"] == false)
  }

  @Test func loginCookieIdentifiesTheCaller() throws {
    let server = try signedUp()
    let response = server.send(
      "/aaa/login.json", [("login", email), ("password", password), ("type", "cookie")])
    let cookie = try #require(response.headers["Set-Cookie"])
    let token = try #require(cookie.split(separator: ";").first?.split(separator: "=").last)
    let check = try server.json(
      "/aaa/login.json", [("checkLogin", "true")], headers: [("Cookie", "theme=x; login=\(token)")])
    #expect(check["loggedIn"] == true)
  }
}
