import Foundation
import SusiHTTPTesting
import SusiJSON
import Testing

@testable import SusiServer

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The server over real HTTP on 127.0.0.1, port 0.
@Suite struct EmbeddedServerTests {
  /// One request through URLSession; returns status, headers and body.
  static func fetch(
    _ url: URL, method: String = "GET", form: String? = nil, headers: [String: String] = [:]
  ) async throws -> (status: Int, headers: [String: String], body: Data) {
    var request = URLRequest(url: url)
    request.httpMethod = method
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    if let form {
      request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
      request.httpBody = Data(form.utf8)
    }
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = 30
    let session = URLSession(configuration: configuration)
    defer { session.finishTasksAndInvalidate() }
    let (data, response) = try await session.data(for: request)
    let http = try #require(response as? HTTPURLResponse)
    var fields: [String: String] = [:]
    for (name, value) in http.allHeaderFields {
      if let name = name as? String, let value = value as? String {
        fields[name.lowercased()] = value
      }
    }
    return (http.statusCode, fields, data)
  }

  static func url(_ server: EmbeddedServer, _ pathAndQuery: String) throws -> URL {
    try #require(URL(string: server.baseURLString + pathAndQuery))
  }

  @Test func servesTheAPIOnALoopbackPort() async throws {
    let server = try await EmbeddedServer.start(ServerConfiguration(seed: 3))
    #expect(server.port > 0)
    #expect(server.baseURL.absoluteString == "http://127.0.0.1:\(server.port)")
    #expect(server.websearchURL.absoluteString == "http://127.0.0.1:\(server.port)/duckduckgo/")
    let groups = try await Self.fetch(Self.url(server, "/cms/getGroups.json"))
    #expect(groups.status == 200)
    #expect(groups.headers["content-type"] == "application/javascript; charset=utf-8")
    #expect(groups.headers["access-control-allow-origin"] == "*")
    let reply = try JSONParser.parse(Array(groups.body))
    #expect(reply["groups"]?.array?.contains("Games, Trivia and Accessories") == true)
    // A caller on loopback is named with the local user its process runs as.
    #expect(
      reply["session"]?["identity"]?["name"]?.string?.hasPrefix("127.0.0.1~u\(getuid())_") == true)

    let skills = try await Self.fetch(
      Self.url(
        server, "/cms/getSkillList.json?group=Games,%20Trivia%20and%20Accessories&minified=true"))
    #expect(String(decoding: skills.body, as: UTF8.self).hasPrefix("{\"accepted\":true,"))
    await server.stop()
  }

  @Test func formLoginErrorPagesAndChatOverHTTP() async throws {
    let state = try temporaryDirectory()
    let server = try await EmbeddedServer.start(
      ServerConfiguration(
        stateDirectory: state, seed: 3, passwordIterations: TestServer.passwordIterations))
    let signup = try await Self.fetch(
      Self.url(server, "/aaa/signup.json"), method: "POST",
      form: "signup=ada%40example.com&password=Secret%23123")
    #expect(signup.status == 200)
    let login = try await Self.fetch(
      Self.url(server, "/aaa/login.json"), method: "POST",
      form: "login=ada%40example.com&password=Secret%23123&type=access-token")
    let token = try #require(try JSONParser.parse(Array(login.body))["access_token"]?.string)

    let rating = try await Self.fetch(
      Self.url(
        server, "/cms/fiveStarRateSkill.json?group=Knowledge&skill=Synonyms&access_token=\(token)"
      ))
    #expect(rating.status == 422)
    #expect(
      String(decoding: rating.body, as: UTF8.self).contains(
        "<title>Error 422 Rating not provided.</title>"))

    let chat = try await Self.fetch(
      Self.url(server, "/susi/chat.json?q=where%20is%20paris&access_token=\(token)"))
    let answer = try JSONParser.parse(Array(chat.body))
    #expect(answer["session"]?["identity"]?["name"] == "ada@example.com")
    let actions = answer["answers"]?.array?.first?["actions"]?.array ?? []
    #expect(actions.map { $0["type"] } == ["answer", "map"])

    let image = try await Self.fetch(
      Self.url(server, "/cms/getImage.png?group=Weather&language=en&image=images/nothing.png"))
    #expect(image.headers["content-type"] == "image/jpeg")
    let search = try await Self.fetch(Self.url(server, "/duckduckgo/?q=berlin&format=json"))
    let firstURL = try JSONParser.parse(Array(search.body))["RelatedTopics"]?.array?.last?[
      "FirstURL"]?.string
    #expect(firstURL == "\(server.baseURLString)/pages/cafe.html")
    await server.stop()

    let restarted = try await EmbeddedServer.start(ServerConfiguration(stateDirectory: state))
    let check = try await Self.fetch(
      Self.url(restarted, "/aaa/login.json?checkLogin=true&access_token=\(token)"))
    #expect(try JSONParser.parse(Array(check.body))["loggedIn"] == true)
    await restarted.stop()
  }

  @Test func answersHeadAndAbsoluteFormTargets() async throws {
    let server = try await EmbeddedServer.start(ServerConfiguration(seed: 3))
    let get = try await Self.fetch(Self.url(server, "/cms/getGroups.json"))
    let head = try await Self.fetch(Self.url(server, "/cms/getGroups.json"), method: "HEAD")
    #expect(head.status == 200)
    #expect(head.body.isEmpty)
    #expect(head.headers["content-length"] == get.headers["content-length"])
    let raw = try Self.exchange(
      port: server.port,
      "GET http://127.0.0.1:4000/cms/getGroups.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    #expect(raw.hasPrefix("HTTP/1.1 200 OK\r\n"))
    #expect(raw.contains("\"groups\""))
    let twice = try Self.exchange(
      port: server.port,
      "GET /aaa/listUserSettings.json HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\r\n"
        + "Authorization: Bearer b\r\nConnection: close\r\n\r\n")
    #expect(twice.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
    await server.stop()
  }

  /// Sends raw bytes on a fresh connection and reads until the server closes it.
  static func exchange(port: Int, _ text: String) throws -> String {
    let client = try LoopbackHTTPClient(port: port, timeoutSeconds: 30)
    try client.send(text)
    return String(decoding: try client.readToEndBlocking(), as: UTF8.self)
  }

  @Test func refusesToStartOnDamagedState() async throws {
    let state = try temporaryDirectory()
    try Data("garbage".utf8).write(to: state.appendingPathComponent("tokens.json"))
    await #expect(throws: (any Error).self) {
      _ = try await EmbeddedServer.start(ServerConfiguration(stateDirectory: state))
    }
  }
}
