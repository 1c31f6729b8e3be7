import Foundation
import SusiClock
import SusiHTTPServer
import SusiHTTPTesting
import SusiHTTPTypes
import SusiJSON
import Testing

@testable import SusiServer

/// A handler on the bundled skills with a manual clock, called directly (no sockets).
struct TestServer {
  static let passwordIterations = 1_000
  /// Where the clock starts: 2020-09-07T21:16:14Z, a date from the real server's captures.
  static let start: Int64 = 1_599_513_374_000
  let handler: SusiServerHandler
  let clock: ManualTimeSource
  let stateDirectory: URL?

  init(
    stateDirectory: URL? = nil, dataDirectory: URL? = nil, seed: UInt64 = 42,
    clock: ManualTimeSource = ManualTimeSource(millisecondsSince1970: TestServer.start),
    configure: (inout ServerConfiguration) -> Void = { _ in }
  ) throws {
    // A low hash cost keeps the suite fast; `PasswordHashingTests` checks the default.
    var configuration = ServerConfiguration(
      dataDirectory: dataDirectory, stateDirectory: stateDirectory, seed: seed,
      clock: clock, passwordIterations: TestServer.passwordIterations)
    configure(&configuration)
    handler = try SusiServerHandler(configuration: configuration)
    self.clock = clock
    self.stateDirectory = stateDirectory
  }

  /// Sends `method path?query` with optional form body and headers.
  func send(
    _ path: String, _ parameters: [(String, String)] = [], method: HTTPMethod = .get,
    form: [(String, String)]? = nil, headers: [(String, String)] = [],
    remoteAddress: String = "203.0.113.7", loopbackUserID: UInt32? = nil
  ) -> HTTPResponse {
    let query = parameters.isEmpty ? "" : "?" + URLEncodedForm.encode(parameters)
    var allHeaders = HTTPHeaders(headers)
    var body: [UInt8] = []
    if let form {
      allHeaders.add("Content-Type", "application/x-www-form-urlencoded")
      body = Array(URLEncodedForm.encode(form).utf8)
    }
    if allHeaders["Host"] == nil { allHeaders.add("Host", "127.0.0.1:4000") }
    return handler.respond(
      HTTPRequest(
        method: method, target: path + query, headers: allHeaders, body: body,
        remoteAddress: remoteAddress, loopbackUserID: loopbackUserID))
  }

  /// Sends and parses a JSON reply, failing the test on a non-200 status.
  func json(
    _ path: String, _ parameters: [(String, String)] = [], method: HTTPMethod = .get,
    form: [(String, String)]? = nil, headers: [(String, String)] = [],
    remoteAddress: String = "203.0.113.7", loopbackUserID: UInt32? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> JSONObject {
    let response = send(
      path, parameters, method: method, form: form, headers: headers, remoteAddress: remoteAddress,
      loopbackUserID: loopbackUserID)
    #expect(response.status == 200, "\(response.text)", sourceLocation: sourceLocation)
    return try #require(try JSONParser.parse(response.body).object, sourceLocation: sourceLocation)
  }

  /// Signs up and logs in `email`, returning an access token.
  func login(_ email: String = "user@example.com", password: String = "Secret#123") throws -> String
  {
    _ = send("/aaa/signup.json", [("signup", email), ("password", password)])
    let reply = try json(
      "/aaa/login.json", [("login", email), ("password", password), ("type", "access-token")])
    return try #require(reply["access_token"]?.string)
  }
}

extension HTTPResponse {
  var text: String { String(decoding: body, as: UTF8.self) }

  /// The `<title>` of an error page.
  var title: String? {
    guard let start = text.range(of: "<title>"), let end = text.range(of: "</title>") else {
      return nil
    }
    return String(text[start.upperBound..<end.lowerBound])
  }
}

/// A fresh empty folder for one test.
func temporaryDirectory() throws -> URL {
  let url = TestScratch.root.appendingPathComponent(
    "susi-server-tests-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  return url
}

/// Writes skill files into a fresh data folder: keys are `group/language/tag`.
func dataDirectory(_ skills: [String: String]) throws -> URL {
  let root = try temporaryDirectory()
  for (path, text) in skills {
    let url = root.appendingPathComponent("models/general/\(path).txt")
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: url)
  }
  return root
}
