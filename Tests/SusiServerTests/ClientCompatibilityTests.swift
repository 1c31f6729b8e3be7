import Foundation
import SusiClock
import SusiHTTPServer
import SusiJSON
import Testing

@testable import SusiServer

/// What published third-party SUSI clients call and read: password recovery, devices, the
/// memory `date`, and the fields the real server sent until mid-2019.
@Suite struct ClientCompatibilityTests {
  @Test func passwordRecoveryAnswersWithAMessageForAKnownAddress() throws {
    let server = try TestServer()
    _ = try server.login("known@example.com")
    let reply = try server.json("/aaa/recoverpassword.json", [("forgotemail", "known@example.com")])
    #expect(reply["accepted"] == false)
    #expect(reply["message"] == "Mail sending disabled")
    #expect(reply["session"]?["identity"]?["anonymous"] == true)
  }

  @Test func passwordRecoveryRefusesUnknownAddressesAndTokens() throws {
    let server = try TestServer()
    let cases: [([(String, String)], Int, String)] = [
      ([("forgotemail", "nobody@example.com")], 422, "email does not exist"),
      ([], 422, "email does not exist"),
      ([("getParameters", "true")], 400, "No token specified"),
      ([("getParameters", "true"), ("token", "abc")], 422, "Invalid token"),
    ]
    for (parameters, status, message) in cases {
      let response = server.send("/aaa/recoverpassword.json", parameters)
      #expect(response.status == status, "\(parameters)")
      #expect(response.title == "Error \(status) \(message)", "\(parameters)")
    }
  }

  @Test func devicesAreAddedListedAndKeptAcrossRestarts() throws {
    let state = try temporaryDirectory()
    let server = try TestServer(stateDirectory: state)
    let token = try server.login()
    let empty = try server.json("/aaa/listUserDevices.json", [("access_token", token)])
    #expect(empty["devices"] == [:])
    #expect(empty["message"] == "Success: Showing user devices")
    let added = try server.json(
      "/aaa/addNewDevice.json",
      [
        ("access_token", token), ("macid", "AA:BB:CC:00:11:22"), ("name", "user"),
        ("room", "kitchen"), ("latitude", "52.5"),
      ])
    #expect(added["accepted"] == true)
    #expect(added["message"] == "You have successfully added the device!")
    let expected: JSON = [
      "AA:BB:CC:00:11:22": [
        "name": "user", "room": "kitchen",
        "geolocation": ["latitude": "52.5", "longitude": "Longitude not available."],
        "deviceAddTime": "2020-09-07T21:16:14.000Z",
      ]
    ]
    let restarted = try TestServer(stateDirectory: state)
    let listed = try restarted.json("/aaa/listUserDevices.json", [("access_token", token)])
    #expect(listed["devices"] == expected)
    let settings = try restarted.json("/aaa/listUserSettings.json", [("access_token", token)])
    #expect(settings["devices"] == expected)
    #expect(settings["settings"] == [:])
  }

  @Test func addingADeviceChecksItsArguments() throws {
    let server = try TestServer()
    let token = try server.login()
    let cases: [([(String, String)], Int, String)] = [
      (
        [("macid", "AA:BB:CC:00:11:22"), ("name", "n")], 400, "Bad service call, missing arguments"
      ),
      ([("macid", "AA:BB:CC:00:11"), ("name", "n"), ("room", "r")], 400, "Invalid Mac Address."),
      (
        [("macid", "AA:BB:CC:00:11:2G"), ("name", "n"), ("room", "r")], 400, "Invalid Mac Address."
      ),
      ([("macid", "aa-bb-cc-00-11-22"), ("name", "n"), ("room", "r")], 200, ""),
    ]
    for (parameters, status, message) in cases {
      let response = server.send("/aaa/addNewDevice.json", parameters + [("access_token", token)])
      #expect(response.status == status, "\(parameters)")
      if status != 200 { #expect(response.title == "Error \(status) \(message)") }
    }
    let anonymous = server.send(
      "/aaa/addNewDevice.json", [("macid", "AA:BB:CC:00:11:22"), ("name", "n"), ("room", "r")])
    #expect(anonymous.status == 401)
    #expect(server.send("/aaa/listUserDevices.json").status == 401)
  }

  @Test func chatAndMemoryRepliesCarryTheOldTopLevelCount() throws {
    let server = try TestServer()
    let reply = try server.json("/susi/chat.json", [("q", "hi")])
    #expect(Array(reply.keys.prefix(2)) == ["query", "count"])
    #expect(reply["count"] == 1)
    let memory = try server.json("/susi/memory.json")
    let cognition = try #require(memory["cognitions"]?.array?.first?.object)
    #expect(cognition["count"] == 1)
    // A reply remembered before `count` was sent gets it in the same place.
    let old: JSONObject = ["query": "hi", "answers": [], "client_id": "x"]
    #expect(MemoryEndpoint.withCount(old).keys == ["query", "count", "answers", "client_id"])
  }

  @Test func emptyQueriesAreNotRemembered() throws {
    let server = try TestServer()
    _ = try server.json("/susi/chat.json", [("q", "hi")])
    _ = try server.json("/susi/chat.json", [("q", " ")])
    let memory = try server.json("/susi/memory.json")
    #expect(memory["cognitions"]?.array?.compactMap { $0["query"]?.string } == ["hi"])
  }

  @Test func memoryIgnoresABadDateAndIncludesTheReplyOfTheGivenDate() async throws {
    let server = try TestServer()
    for i in 0..<3 {
      _ = try server.json("/susi/chat.json", [("q", "say number \(i)")])
      await server.clock.advance(by: .seconds(1))
    }
    // "say number 1" was asked at 21:16:15.
    let at = try server.json("/susi/memory.json", [("date", "2020-09-07T21:16:15.000Z")])
    #expect(
      at["cognitions"]?.array?.compactMap { $0["query"]?.string } == [
        "say number 1", "say number 0",
      ])
    #expect(at["cognitions_remaining"] == 0)
    let between = try server.json("/susi/memory.json", [("date", "2020-09-07T21:16:15.500Z")])
    #expect(between["cognitions"]?.array?.first?["query"] == "say number 1")
    for bad in ["yesterday", "2020-13-45T99:00:00.000Z", "0"] {
      let reply = try server.json("/susi/memory.json", [("date", bad)])
      #expect(reply["cognitions"]?.array?.count == 3, "\(bad)")
    }
  }
}
