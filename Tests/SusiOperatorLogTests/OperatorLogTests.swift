import SusiHTTPServer
import SusiHTTPTypes
import SusiJSON
import SusiOperatorLog
import Synchronization
import Testing

/// The operators' log: one line per entry, JSON or text, filtered by level; and the request
/// log in front of a handler (ids both ways, nothing from the query).
@Suite struct OperatorLogTests {
  /// Collects the lines a log writes.
  final class Lines: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    func writer() -> OperatorLog.Writer {
      { bytes in self.lines.withLock { $0.append(String(decoding: bytes, as: UTF8.self)) } }
    }
  }

  final class Fixed: HTTPHandler {
    let status: Int
    let seen = Mutex<[HTTPRequest]>([])
    init(status: Int) { self.status = status }
    func handle(_ request: HTTPRequest) async -> HTTPResponse {
      seen.withLock { $0.append(request) }
      return HTTPResponse(status: status, body: Array("hello".utf8))
    }
  }

  @Test func aJSONLineIsOneObjectWithTheFieldsAndANewline() throws {
    let lines = Lines()
    let log = OperatorLog(component: "serve", level: .info, format: .json, writer: lines.writer())
    log.info("listening", ["url": .string("http://127.0.0.1:8080"), "lastSeq": .int(7)])
    let line = try #require(lines.all.first)
    #expect(line.hasSuffix("}\n"))
    #expect(line.filter { $0 == "\n" }.count == 1)
    let object = try JSONParser.parse(Array(line.utf8.dropLast()))
    #expect(object["level"]?.string == "info")
    #expect(object["component"]?.string == "serve")
    #expect(object["message"]?.string == "listening")
    #expect(object["url"]?.string == "http://127.0.0.1:8080")
    #expect(object["lastSeq"]?.int == 7)
    #expect(object["time"]?.string?.hasSuffix("Z") == true)
  }

  @Test func entriesBelowTheLevelAreNotWritten() {
    let lines = Lines()
    let log = OperatorLog(component: "web", level: .warning, format: .text, writer: lines.writer())
    log.debug("noise")
    log.info("more noise")
    log.warning("kept")
    log.error("kept too")
    #expect(lines.all.count == 2)
    #expect(lines.all[0].contains("WARNING web: kept"))
  }

  @Test func aTextLineShowsControlCharactersInsteadOfWritingThem() throws {
    let lines = Lines()
    let log = OperatorLog(component: "serve", level: .info, format: .text, writer: lines.writer())
    log.info("request", ["path": .string("/x\nforged line"), "status": .int(200)])
    let line = try #require(lines.all.first)
    #expect(line.filter { $0 == "\n" }.count == 1)
    #expect(line.contains(#"path="/x\u{a}forged line""#))
    #expect(line.contains("status=200"))
  }

  @Test func aRequestGetsAnIdBothWaysAndItsQueryIsNotLogged() async throws {
    let lines = Lines()
    let log = OperatorLog(component: "serve", level: .info, format: .json, writer: lines.writer())
    let inner = Fixed(status: 200)
    let handler = RequestLogging(inner, log: log)
    let response = await handler.handle(
      HTTPRequest(method: "GET", target: "/web/?token=secret-link&x=1"))
    let id = try #require(response.headers["X-Request-Id"])
    #expect(inner.seen.withLock { $0.first?.headers["X-Request-Id"] } == id)
    let line = try #require(lines.all.first)
    #expect(!line.contains("secret-link"))
    let object = try JSONParser.parse(Array(line.utf8.dropLast()))
    #expect(object["request"]?.string == id)
    #expect(object["path"]?.string == "/web/")
    #expect(object["status"]?.int == 200)
    #expect(object["bytes"]?.int == 5)
    let second = await handler.handle(HTTPRequest(method: "GET", target: "/healthz"))
    #expect(second.headers["X-Request-Id"] != id)
  }

  @Test func aSaneIncomingIdIsKeptAndAnyOtherReplaced() async throws {
    let lines = Lines()
    let log = OperatorLog(component: "serve", level: .info, format: .json, writer: lines.writer())
    let handler = RequestLogging(Fixed(status: 503), log: log)
    let kept = await handler.handle(
      HTTPRequest(method: "POST", target: "/actions", headers: ["X-Request-Id": "proxy-42.a_b"]))
    #expect(kept.headers["X-Request-Id"] == "proxy-42.a_b")
    let replaced = await handler.handle(
      HTTPRequest(method: "POST", target: "/actions", headers: ["X-Request-Id": "bad id\u{1b}[31m"])
    )
    #expect(replaced.headers["X-Request-Id"] != "bad id\u{1b}[31m")
    #expect(replaced.headers["X-Request-Id"]?.isEmpty == false)
    // A server error is logged at error level.
    #expect(lines.all.allSatisfy { $0.contains(#""level":"error""#) })
  }
}
