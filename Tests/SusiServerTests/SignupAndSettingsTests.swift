import Foundation
import SusiHTTPServer
import SusiJSON
import Testing

@testable import SusiServer

@Suite struct SignupAndSettingsTests {
  @Test func signupSucceedsWithoutCaptcha() throws {
    let server = try TestServer()
    let reply = try server.json(
      "/aaa/signup.json", [("signup", "a@example.com"), ("password", "Secret#123")])
    #expect(reply["accepted"] == true)
    #expect(reply["message"] == "You successfully signed-up!")
  }

  @Test func signupErrors() throws {
    let server = try TestServer()
    let tooltip = SignupEndpoint.passwordTooltip
    let cases: [([(String, String)], Int, String)] = [
      ([("signup", "a@example.com")], 422, "signup or password empty"),
      ([("signup", ""), ("password", "Secret#123")], 422, "signup or password empty"),
      ([("signup", "not-an-email"), ("password", "Secret#123")], 422, "No valid email address"),
      ([("signup", "a@example.com"), ("password", "short#1A")], 200, ""),
      ([("signup", "b@example.com"), ("password", "secret#123")], 422, tooltip),
      ([("signup", "b@example.com"), ("password", "Secret1234")], 422, tooltip),
      ([("signup", "b@example.com"), ("password", "Sh#1")], 422, tooltip),
      ([("signup", "A#1bcdefg@x.io"), ("password", "A#1bcdefg@x.io")], 422, tooltip),
      ([("signup", "a@example.com"), ("password", "Secret#123")], 422, "email is already taken"),
    ]
    for (parameters, status, message) in cases {
      let response = server.send("/aaa/signup.json", parameters)
      #expect(response.status == status, "\(parameters)")
      if status != 200 { #expect(response.title == "Error \(status) \(message)", "\(parameters)") }
    }
  }

  @Test func getParametersTellsThePasswordRule() throws {
    let server = try TestServer()
    let reply = try server.json("/aaa/signup.json", [("getParameters", "true")])
    #expect(reply["regex"] == "^((?=.*\\d)(?=.*[A-Z])(?=.*\\W).{8,64})$")
    #expect(reply["message"] == "Success: showing parameters")
    #expect(reply["regexTooltip"]?.string == SignupEndpoint.passwordTooltip)
  }

  @Test func signupCanBeClosedOrNeedACaptcha() throws {
    let closed = try TestServer { $0.publicSignup = false }
    let response = closed.send(
      "/aaa/signup.json", [("signup", "a@example.com"), ("password", "Secret#123")])
    #expect(response.status == 403)
    #expect(response.title == "Error 403 Public signup disabled")
    let captcha = try TestServer { $0.signupCaptcha = true }
    let refused = captcha.send(
      "/aaa/signup.json", [("signup", "a@example.com"), ("password", "Secret#123")])
    #expect(refused.title == "Error 422 Please verify recaptcha")
  }

  @Test func settingsNeedALogin() throws {
    let server = try TestServer()
    for path in ["/aaa/listUserSettings.json", "/aaa/changeUserSettings.json"] {
      let response = server.send(path, [("theme", "dark"), ("access_token", "expired")])
      #expect(response.status == 401)
      #expect(
        response.title
          == "Error 401 Base user role not sufficient. Your base user role is 'ANONYMOUS', minimum user role required is 'user'"
      )
    }
  }

  @Test func changesSeveralKnownKeysAndListsThemAsStrings() throws {
    let server = try TestServer()
    let token = try server.login()
    let empty = try server.json("/aaa/listUserSettings.json", [("access_token", token)])
    #expect(empty["settings"] == .object([:]))
    let changed = try server.json(
      "/aaa/changeUserSettings.json",
      [
        ("theme", "dark"), ("speechRate", "0.8"), ("enterAsSend", "true"), ("unknownKey", "x"),
        ("access_token", token),
      ])
    #expect(changed["message"] == "You successfully changed settings of your account!")
    let list = try server.json("/aaa/listUserSettings.json", [("access_token", token)])
    #expect(list.keys == ["settings", "devices", "accepted", "message", "session"])
    #expect(list["settings"] == ["theme": "dark", "speechRate": "0.8", "enterAsSend": "true"])
    #expect(list["message"] == "Success: Showing user settings")
  }

  @Test func rejectsOldFormatAndBadUserNames() throws {
    let server = try TestServer()
    let token = try server.login()
    let old = server.send(
      "/aaa/changeUserSettings.json",
      [("count", "1"), ("key1", "theme"), ("value1", "dark"), ("access_token", token)])
    #expect(old.status == 400)
    #expect(old.title == "Error 400 Bad Service call, key or value parameters not provided")
    for name in ["abcd", String(repeating: "x", count: 52)] {
      let bad = server.send(
        "/aaa/changeUserSettings.json",
        [("userName", name), ("theme", "dark"), ("access_token", token)])
      #expect(bad.status == 400)
      #expect(bad.title == "Error 400 Enter atleast 5 character, upto 51 character")
    }
    // Nothing changed by the refused calls.
    #expect(
      try server.json("/aaa/listUserSettings.json", [("access_token", token)])["settings"]
        == .object([:]))
    _ = try server.json(
      "/aaa/changeUserSettings.json", [("userName", "Ada L."), ("access_token", token)])
    #expect(
      try server.json("/aaa/listUserSettings.json", [("access_token", token)])["settings"] == [
        "userName": "Ada L."
      ])
  }

  @Test func settingsAreKeptPerUser() throws {
    let server = try TestServer()
    let first = try server.login("one@example.com")
    let second = try server.login("two@example.com")
    _ = try server.json(
      "/aaa/changeUserSettings.json", [("theme", "dark"), ("access_token", first)])
    #expect(
      try server.json("/aaa/listUserSettings.json", [("access_token", second)])["settings"]
        == .object([:]))
  }
}
