import Foundation
import SusiClock
import SusiHTTPClient
import SusiHTTPServer
import SusiHTTPTesting
import SusiHTTPTypes
import SusiJSON
import Synchronization
import Testing

@testable import SusiServer

/// Answers from fixtures, recording what it was asked.
final class FixtureHandler: HTTPHandler {
  let routes: [String: HTTPResponse]
  let requests = Mutex<[HTTPRequest]>([])

  init(_ routes: [String: HTTPResponse]) { self.routes = routes }

  func handle(_ request: HTTPRequest) async -> HTTPResponse {
    requests.withLock { $0.append(request) }
    return routes[request.path] ?? HTTPResponse(status: 404, contentType: "text/plain", body: "no")
  }
}

/// A loopback API serving fixtures.
struct FixtureAPI {
  let handler: FixtureHandler
  let server: HTTPServer
  let port: Int

  init(_ routes: [String: HTTPResponse]) throws {
    handler = FixtureHandler(routes)
    server = HTTPServer(configuration: HTTPServer.Configuration(), handler: handler)
    port = try server.start()
  }

  var base: String { "http://127.0.0.1:\(port)" }
  var seen: [HTTPRequest] { handler.requests.withLock { $0 } }

  static func json(_ text: String, headers: [(String, String)] = []) -> HTTPResponse {
    var response = HTTPResponse(status: 200, contentType: "application/json", body: text)
    for (name, value) in headers { response.headers.add(name, value) }
    return response
  }
}

/// Warnings a service gave, for assertions.
final class WarningLog: Sendable {
  private let lines = Mutex<[String]>([])
  var all: [String] { lines.withLock { $0 } }
  var sink: @Sendable (String) -> Void { { [self] line in lines.withLock { $0.append(line) } } }
}

@Suite struct ConsoleTests {
  static let weather = """
    {"city": {"name": "Paris"}, "list": [
      {"name": "Paris", "main": {"temp": 21.5}, "wind": 3},
      {"name": "Lyon", "main": {"temp": 24}, "wind": 5}]}
    """

  func service(
    allowsPrivate: Bool = true, clock: any TimeSource = ManualTimeSource(),
    warnings: WarningLog = WarningLog(),
    configure: (inout ConsoleService.Configuration) -> Void = { _ in }
  ) -> ConsoleService {
    var configuration = ConsoleService.Configuration(allowsPrivateHosts: allowsPrivate)
    // Generous limits: a loaded machine must not turn a slow loopback reply into a missing one
    // (the tests about time limits set their own).
    configuration.idleTimeout = 120
    configuration.totalTimeout = 120
    configure(&configuration)
    return ConsoleService(
      transport: SocketTransport(), configuration: configuration, clock: clock,
      warn: warnings.sink)
  }

  func definition(_ text: String) throws -> ConsoleDefinition {
    try ConsoleDefinition(definition: try #require(try JSONParser.parse(text).object))
  }

  @Test func aURLRuleAnswersFromItsAPIWithTheVariablesFilled() async throws {
    let api = try FixtureAPI(["/weather": FixtureAPI.json(Self.weather)])
    defer { Task { await api.server.shutdown() } }
    let rule = try definition(
      """
      {"url": "\(api.base)/weather?q=$1$&units=metric", "path": "$.list",
       "actions": [{"type": "table", "columns": {"name": "City", "wind": "Wind"}}]}
      """)
    let answer = try #require(
      await service().answer(
        rule, bindings: .captures(["weather in new york/ny", "new york/ny"]),
        answers: ["It is $main.temp$ °C in $name$", "unused"], language: "en",
        line: 7, pick: { _ in 0 }))
    #expect(api.seen.map(\.target) == ["/weather?q=new%20york%2Fny&units=metric"])
    #expect(api.seen.first?.headers["Accept"] == "application/json")
    #expect(answer.data.count == 2)
    #expect(answer.data[0]["actions"] == .array(rule.actions.map(JSON.object)))
    #expect(answer.data[1]["name"] == "Lyon")
    #expect(
      answer.actions == [
        ["type": "table", "columns": ["name": "City", "wind": "Wind"], "count": -1],
        [
          "type": "answer", "language": "en", "line": 7,
          "expression": "It is 21.5 °C in Paris",
        ],
      ])
  }

  @Test func anAnswerNamingAVariableNoRowHoldsFallsThrough() async throws {
    let api = try FixtureAPI(["/weather": FixtureAPI.json(Self.weather)])
    defer { Task { await api.server.shutdown() } }
    let rule = try definition(#"{"url": "\#(api.base)/weather", "path": "$.list"}"#)
    let console = service()
    let missing = await console.answer(
      rule, bindings: SkillBindings(), answers: ["It is $pressure$ hPa"], language: "en",
      line: 1, pick: { _ in 0 })
    #expect(missing == nil)
    let found = await console.answer(
      rule, bindings: SkillBindings(), answers: ["Wind $wind$ costs $5 or $ 6"], language: "en",
      line: 1, pick: { _ in 0 })
    #expect(found?.actions.last?["expression"] == "Wind 3 costs $5 or $ 6")
  }

  @Test func privateHostsAreRefusedUnlessTheOperatorAllowsThem() async throws {
    let api = try FixtureAPI(["/weather": FixtureAPI.json(Self.weather)])
    defer { Task { await api.server.shutdown() } }
    let rule = try definition(#"{"url": "\#(api.base)/weather", "path": "$.list"}"#)
    let warnings = WarningLog()
    let refused = await service(allowsPrivate: false, warnings: warnings).rows(
      rule, bindings: SkillBindings())
    #expect(refused == nil)
    #expect(api.seen.isEmpty)
    #expect(warnings.all.count == 1)
    #expect(warnings.all.first?.contains("loopback") == true)
    #expect(await service(allowsPrivate: true).rows(rule, bindings: SkillBindings())?.count == 2)
  }

  @Test func noNetworkAnErrorStatusOrABadReplyFallThrough() async throws {
    let api = try FixtureAPI([
      "/broken": HTTPResponse(status: 500, contentType: "application/json", body: "[]"),
      "/text": HTTPResponse(status: 200, contentType: "text/plain", body: "not json"),
      "/big": FixtureAPI.json("[" + String(repeating: "{\"a\": 1},", count: 2000) + "{}]"),
    ])
    let closedPort = api.port
    let console = service { $0.maximumBodyBytes = 1000 }
    for path in ["/broken", "/text", "/big", "/missing"] {
      let rule = try definition(#"{"url": "\#(api.base)\#(path)", "path": "$.list"}"#)
      #expect(await console.rows(rule, bindings: SkillBindings()) == nil, "\(path)")
    }
    await api.server.shutdown()
    let offline = try definition(#"{"url": "http://127.0.0.1:\#(closedPort)/x", "path": "$"}"#)
    #expect(await console.rows(offline, bindings: SkillBindings()) == nil)
    // Inline data still answers when the API gives nothing.
    let withData = try definition(
      #"{"url": "http://127.0.0.1:\#(closedPort)/x", "path": "$", "data": [{"a": 1}, {}]}"#)
    #expect(await console.rows(withData, bindings: SkillBindings()) == [["a": 1]])
  }

  @Test func aSilentAPIIsGivenUpAtTheTimeLimit() async throws {
    let silent = try #require(SilentServer())
    let console = service {
      $0.idleTimeout = 0.2
      $0.totalTimeout = 0.3
    }
    let rule = try definition(#"{"url": "http://127.0.0.1:\#(silent.port)/x", "path": "$"}"#)
    #expect(await console.rows(rule, bindings: SkillBindings()) == nil)
  }

  @Test func redirectsAreFollowedAndRequestAndResponseHeadersUsed() async throws {
    var moved = HTTPResponse(status: 302)
    moved.headers.add("Location", "/new")
    let api = try FixtureAPI([
      "/old": moved,
      "/new": FixtureAPI.json(#"{"value": "ok"}"#, headers: [("X-Rate-Left", "41")]),
    ])
    defer { Task { await api.server.shutdown() } }
    let rule = try definition(
      """
      {"url": "\(api.base)/old", "path": "$.value", "request": {"X-Key": "k-$1$"},
       "response": {"x-rate-left": "left"}}
      """)
    let rows = await service().rows(rule, bindings: .captures(["q", "7"]))
    #expect(rows == [["!": "ok"], ["left": "41"]])
    #expect(api.seen.map(\.path) == ["/old", "/new"])
    #expect(api.seen.first?.headers["X-Key"] == "k-7")
  }

  @Test func successfulRepliesAreReusedForAShortWhile() async throws {
    let api = try FixtureAPI(["/weather": FixtureAPI.json(Self.weather)])
    defer { Task { await api.server.shutdown() } }
    let clock = ManualTimeSource()
    let console = service(clock: clock)
    let rule = try definition(#"{"url": "\#(api.base)/weather", "path": "$.city"}"#)
    for _ in 0..<3 { #expect(await console.rows(rule, bindings: SkillBindings()) != nil) }
    #expect(api.seen.count == 1)
    await clock.advance(by: .seconds(61))
    #expect(await console.rows(rule, bindings: SkillBindings()) != nil)
    #expect(api.seen.count == 2)
  }

  @Test func aRuleWithOnlyActionsOrDataAnswersWithoutTheNetwork() async throws {
    let console = service(allowsPrivate: false)
    let actions = try definition(
      #"{"actions": [{"type": "video_play", "identifier_type": "youtube", "identifier": "$1$"}, {"type": "io"}]}"#
    )
    let answer = try #require(
      await console.answer(
        actions, bindings: .captures(["play x", "abc"]), answers: [], language: "en", line: 3,
        pick: { _ in 0 }))
    #expect(
      answer.actions == [["type": "video_play", "identifier_type": "youtube", "identifier": "abc"]])
    let data = try definition(#"{"data": [{"gas": "neon"}, {"gas": "argon"}]}"#)
    let listed = await console.answer(
      data, bindings: SkillBindings(), answers: ["$gas$ first"], language: "en", line: 1,
      pick: { _ in 0 })
    #expect(listed?.data.count == 2)
    #expect(
      listed?.actions == [
        ["type": "answer", "language": "en", "line": 1, "expression": "neon first"]
      ])
    #expect(await console.rows(try definition("{}"), bindings: SkillBindings()) == nil)
  }

  @Test func theServersConfigurationSetsTheAddressPolicyAndTheWarnings() async throws {
    let api = try FixtureAPI(["/weather": FixtureAPI.json(Self.weather)])
    defer { Task { await api.server.shutdown() } }
    let rule = try definition(#"{"url": "\#(api.base)/weather", "path": "$.city.name"}"#)
    let warnings = WarningLog()
    let publicOnly = try TestServer { $0.ruleWarnings = warnings.sink }
    let refused = await publicOnly.handler.context.console(
      rule, bindings: SkillBindings(), answers: ["In $!$"], language: "en", line: 2,
      pick: { _ in 0 })
    #expect(refused == nil)
    #expect(warnings.all.first?.hasPrefix("!console: no reply from \(api.base)/weather") == true)
    let local = try TestServer { $0.allowsPrivateConsoleHosts = true }
    let answer = local.handler.context.consoleWaiting(
      rule, bindings: SkillBindings(), answers: ["In $!$"], language: "de", line: 2,
      pick: { _ in 0 })
    #expect(
      answer?.actions == [
        ["type": "answer", "language": "de", "line": 2, "expression": "In Paris"]
      ])
  }

  @Test func aCallerThatIsNotAsyncCanWaitForTheAnswer() throws {
    let api = try FixtureAPI(["/weather": FixtureAPI.json(Self.weather)])
    defer { Task { await api.server.shutdown() } }
    let rule = try definition(#"{"url": "\#(api.base)/weather", "path": "$.city.name"}"#)
    let answer = service().answerWaiting(
      rule, bindings: SkillBindings(), answers: ["In $!$"], language: "en", line: 1,
      pick: { _ in 0 })
    #expect(answer?.actions.last?["expression"] == "In Paris")
  }
}

@Suite struct ConsolePathTests {
  func rows(_ json: String, _ path: String) -> [JSONObject]? {
    ConsolePath.rows(Array(json.utf8), path: path)
  }

  @Test func pathsReadAsTheRealServerReadsThem() {
    #expect(rows(#"[{"a": 1}, {}, {"a": 2}]"#, "$") == [["a": 1], ["a": 2]])
    #expect(rows("plain text", "$") == [["!": "plain text"]])
    #expect(rows(#"{"a": 1}"#, "$") == [["!": #"{"a": 1}"#]])
    #expect(rows(#"{"a": {"b": [{"c": 1}]}}"#, "$.a.b") == [["c": 1]])
    #expect(
      rows(#"{"a": [[1, 2], [3, {"x": 4}]]}"#, "$.a[1][1]") == [
        ["x": 4, "k0": "x", "v0": 4, "mapsize": 1]
      ])
    #expect(rows(#"{"a": ["x", "y"]}"#, "$.a[1]") == [["!": "y"]])
    #expect(rows(#"[[{"p": 1}], [{"q": 2}]]"#, "$[1]") == [["q": 2]])
    #expect(
      rows(#"[{"p": [5, 6]}]"#, "$.[0]") == [
        ["p": [5, 6], "k0": "p", "v0": [5, 6], "mapsize": 1]
      ])
    #expect(rows(#"{"n": 2.5, "t": true}"#, "$.n") == [["!": "2.5"]])
    #expect(rows(#"{"n": 2.5, "t": true}"#, "$.t") == [["!": "true"]])
    #expect(rows(#"{"list": [1, 2]}"#, "$.list") == [["!": 1], ["!": 2]])
    #expect(rows(#"{"list": [7]}"#, "$.list") == [["!": 7]])
  }

  @Test func pathsThatDoNotFitGiveNothing() {
    #expect(rows(#"{"a": 1}"#, "$.b") == nil)
    #expect(rows(#"{"a": [1, {"b": 2}]}"#, "$.a") == nil)
    #expect(rows(#"{"a": [[1], [2]]}"#, "$.a") == nil)
    #expect(rows(#"{"a": [1]}"#, "$.a[3]") == nil)
    #expect(rows(#"{"a": null}"#, "$.a") == nil)
    #expect(rows("not json", "$.a") == nil)
    #expect(rows(#"{"a": 1}"#, "a") == nil)
  }
}

@Suite struct SkillBindingsTests {
  @Test func variablesComeFromTheFirstRowHoldingThem() {
    let bindings = SkillBindings(rows: [
      ["!": "42", "obj": ["inner": ["deep": true]], "n": 3, "dotted.key": "d"],
      ["0": "query", "n": "older"],
    ])
    #expect(bindings.fill("$!$ $n$ $0$ $obj.inner.deep$ $dotted.key$") == "42 3 query true d")
    #expect(bindings.fill("$n$ and $n$") == "3 and 3")
    #expect(bindings.fill("$missing$") == nil)
    #expect(bindings.fill("$ 5 and $6 but $$ too") == "$ 5 and $6 but $$ too")
  }

  @Test func urlValuesArePercentEncoded() {
    let bindings = SkillBindings.captures(["q", "new york & co/ä+~"])
    #expect(
      bindings.fill("https://x.example/a/$1$?q=$1$", urlEncoded: true)
        == "https://x.example/a/new%20york%20%26%20co%2F%C3%A4%2B~?q=new%20york%20%26%20co%2F%C3%A4%2B~"
    )
  }
}
