import SusiHTTPTypes
import Testing

@testable import SusiHTTPServer

/// One request-head fixture and what the parser must make of it.
struct ParserFixture: CustomTestStringConvertible, Sendable {
  let name: String
  let raw: String
  let expected: [ParsedMessage]

  var testDescription: String { name }

  static func accepts(
    _ name: String, _ raw: String, method: String = "GET", target: String = "/", body: String = ""
  ) -> ParserFixture {
    ParserFixture(
      name: name, raw: raw, expected: [.request(method: method, target: target, body: body)])
  }

  static func rejects(_ name: String, _ raw: String, status: Int) -> ParserFixture {
    ParserFixture(name: name, raw: raw, expected: [.rejected(status)])
  }
}

extension ParsedMessage: @unchecked Sendable {}

/// The valid and invalid requests the parser is held to, in the spirit of h1spec's cases.
let parserFixtures: [ParserFixture] = [
  .accepts("simple GET", "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n"),
  .accepts(
    "GET with query", "GET /a/b?c=d&e=f HTTP/1.1\r\nHost: x\r\n\r\n", target: "/a/b?c=d&e=f"),
  .accepts("HTTP/1.0 without Host", "GET / HTTP/1.0\r\n\r\n"),
  .accepts("empty Host value", "GET / HTTP/1.1\r\nHost:\r\n\r\n"),
  .accepts("Host with port", "GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n"),
  .accepts("IPv6 Host", "GET / HTTP/1.1\r\nHost: [::1]:80\r\n\r\n"),
  .accepts(
    "POST with Content-Length", "POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello",
    method: "POST", target: "/p", body: "hello"),
  .accepts(
    "Content-Length zero", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", method: "POST"
  ),
  .accepts(
    "leading zeros in Content-Length",
    "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 003\r\n\r\nabc",
    method: "POST", body: "abc"),
  .accepts(
    "chunked body",
    "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n",
    method: "POST", body: "hello world"),
  .accepts(
    "chunked with extension and trailer",
    "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: Chunked\r\n\r\nA;name=value\r\n0123456789\r\n0\r\nX-Trailer: yes\r\n\r\n",
    method: "POST", body: "0123456789"),
  .accepts("one leading empty line", "\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n"),
  .accepts(
    "header value with tab and obs-text", "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\tb \u{e9}\r\n\r\n"),
  .accepts("no whitespace after colon", "GET / HTTP/1.1\r\nHost:x\r\nX-A:b\r\n\r\n"),
  .accepts(
    "asterisk form for OPTIONS", "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n", method: "OPTIONS",
    target: "*"),
  .accepts(
    "absolute form", "GET http://x/y HTTP/1.1\r\nHost: x\r\n\r\n", target: "/y"),
  .accepts(
    "absolute form with a query and no path", "GET http://x:1?a=b HTTP/1.1\r\nHost: x\r\n\r\n",
    target: "/?a=b"),
  .accepts("later 1.x minor version", "GET / HTTP/1.2\r\nHost: x\r\n\r\n"),
  .accepts("custom method", "PURGE /c HTTP/1.1\r\nHost: x\r\n\r\n", method: "PURGE", target: "/c"),
  .accepts(
    "Expect 100-continue",
    "POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-Continue\r\nContent-Length: 2\r\n\r\nok",
    method: "POST", body: "ok"),

  .rejects("missing Host", "GET / HTTP/1.1\r\n\r\n", status: 400),
  .rejects(
    "missing Host with a body announced", "POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\n",
    status: 400),
  .rejects(
    "absolute form with user info", "GET http://u@x/y HTTP/1.1\r\nHost: x\r\n\r\n", status: 400),
  .rejects(
    "two Authorization fields",
    "GET / HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\r\nAuthorization: Bearer b\r\n\r\n",
    status: 400),
  .rejects("two Host fields", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", status: 400),
  .rejects("identical Host fields", "GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n", status: 400),
  .rejects("Host with a space", "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", status: 400),
  .rejects("Host with a slash", "GET / HTTP/1.1\r\nHost: a/b\r\n\r\n", status: 400),
  .rejects(
    "negative Content-Length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
    status: 400),
  .rejects(
    "signed Content-Length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: +5\r\n\r\nhello",
    status: 400),
  .rejects(
    "letters in Content-Length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
    status: 400),
  .rejects(
    "hex Content-Length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0x5\r\n\r\n", status: 400),
  .rejects(
    "empty Content-Length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length:\r\n\r\n", status: 400),
  .rejects(
    "overflowing Content-Length",
    "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\n\r\n", status: 400),
  .rejects(
    "Content-Length list", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5, 5\r\n\r\nhello",
    status: 400),
  .rejects(
    "repeated identical Content-Length",
    "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello", status: 400
  ),
  .rejects(
    "conflicting Content-Length",
    "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
    status: 400),
  .rejects(
    "Transfer-Encoding with Content-Length",
    "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    status: 400),
  .rejects(
    "Content-Length after Transfer-Encoding",
    "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n",
    status: 400),
  .rejects(
    "unknown transfer coding", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n",
    status: 501),
  .rejects(
    "xchunked", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: xchunked\r\n\r\n", status: 501),
  .rejects(
    "gzip then chunked", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
    status: 501),
  .rejects(
    "chunked twice", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, chunked\r\n\r\n",
    status: 400),
  .rejects(
    "empty Transfer-Encoding", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: \r\n\r\n",
    status: 400),
  .rejects(
    "Transfer-Encoding in HTTP/1.0",
    "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", status: 400),
  .rejects("whitespace before colon", "GET / HTTP/1.1\r\nHost : x\r\n\r\n", status: 400),
  .rejects("tab before colon", "GET / HTTP/1.1\r\nHost: x\r\nX-A\t: b\r\n\r\n", status: 400),
  .rejects("obs-fold", "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n", status: 400),
  .rejects("obs-fold with tab", "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\r\n\tb\r\n\r\n", status: 400),
  .rejects(
    "space-folded Transfer-Encoding",
    "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding:\r\n chunked\r\n\r\n", status: 400),
  .rejects("bare CR in a value", "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\rb\r\n\r\n", status: 400),
  .rejects("bare CR ending a line", "GET / HTTP/1.1\rHost: x\r\n\r\n", status: 400),
  .rejects("bare LF ending a line", "GET / HTTP/1.1\nHost: x\r\n\r\n", status: 400),
  .rejects("bare LF ending the head", "GET / HTTP/1.1\r\nHost: x\r\n\n", status: 400),
  .rejects("NUL in a value", "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\u{0}b\r\n\r\n", status: 400),
  .rejects("DEL in a value", "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\u{7f}b\r\n\r\n", status: 400),
  .rejects("escape in a value", "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\u{1b}b\r\n\r\n", status: 400),
  .rejects(
    "brackets in a field name", "GET / HTTP/1.1\r\nHost: x\r\nX-Invalid[]: a\r\n\r\n", status: 400),
  .rejects("empty field name", "GET / HTTP/1.1\r\nHost: x\r\n: a\r\n\r\n", status: 400),
  .rejects("line without colon", "GET / HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n", status: 400),
  .rejects(
    "control character in the target", "GET /a\u{1}b HTTP/1.1\r\nHost: x\r\n\r\n", status: 400),
  .rejects("raw UTF-8 in the target", "GET /caf\u{e9} HTTP/1.1\r\nHost: x\r\n\r\n", status: 400),
  .rejects("two spaces in the request line", "GET  / HTTP/1.1\r\nHost: x\r\n\r\n", status: 400),
  .rejects("space inside the target", "GET /a b HTTP/1.1\r\nHost: x\r\n\r\n", status: 400),
  .rejects("missing version", "GET /\r\nHost: x\r\n\r\n", status: 400),
  .rejects("lowercase version", "GET / http/1.1\r\nHost: x\r\n\r\n", status: 400),
  .rejects("HTTP/2.0", "GET / HTTP/2.0\r\nHost: x\r\n\r\n", status: 505),
  .rejects("HTTP/0.9 version", "GET / HTTP/0.9\r\nHost: x\r\n\r\n", status: 505),
  .rejects("target without slash", "GET index.html HTTP/1.1\r\nHost: x\r\n\r\n", status: 400),
  .rejects("asterisk for GET", "GET * HTTP/1.1\r\nHost: x\r\n\r\n", status: 400),
  .rejects("invalid method character", "G(T / HTTP/1.1\r\nHost: x\r\n\r\n", status: 400),
  .rejects(
    "too many empty lines first", "\r\n\r\n\r\n\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n",
    status: 400),
  .rejects(
    "unknown expectation", "GET / HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\n\r\n", status: 417),
  .rejects(
    "chunk size with sign",
    "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n+5\r\nhello\r\n0\r\n\r\n",
    status: 400),
  .rejects(
    "chunk size with space",
    "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5 \r\nhello\r\n0\r\n\r\n",
    status: 400),
  .rejects(
    "chunk without CRLF after data",
    "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXX0\r\n\r\n",
    status: 400),
  .rejects(
    "chunk size too large",
    "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFF\r\n",
    status: 400),
  .rejects(
    "chunk line with bare LF",
    "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\nhello\r\n0\r\n\r\n",
    status: 400),
  .rejects(
    "trailer with obs-fold",
    "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: a\r\n b\r\n\r\n",
    status: 400),
]

@Suite struct HTTPRequestParserTests {
  @Test(arguments: parserFixtures)
  func parsesFixtureWhole(_ fixture: ParserFixture) {
    #expect(parseMessages(fixture.raw) == fixture.expected)
  }

  @Test(arguments: parserFixtures)
  func parsesFixtureByteByByte(_ fixture: ParserFixture) {
    #expect(parseMessages(fixture.raw, pieceSize: 1) == fixture.expected)
  }

  @Test func waitsForTheRestOfAFragmentedHead() {
    var parser = HTTPRequestParser(limits: HTTPLimits())
    parser.append(Array("GET / HTTP/1.1\r\nHo".utf8))
    #expect(parser.next() == .needMoreBytes)
    parser.append(Array("st: x\r\n\r".utf8))
    #expect(parser.next() == .needMoreBytes)
    parser.append(Array("\n".utf8))
    guard case .head(let head) = parser.next() else {
      Issue.record("expected a head")
      return
    }
    #expect(head.headers["host"] == "x")
    #expect(parser.next() == .end)
    #expect(parser.next() == .needMoreBytes)
  }

  @Test func parsesPipelinedRequestsInOrder() {
    let raw =
      "GET /1 HTTP/1.1\r\nHost: x\r\n\r\nPOST /2 HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabcGET /3 HTTP/1.1\r\nHost: x\r\n\r\n"
    #expect(
      parseMessages(raw) == [
        .request(method: "GET", target: "/1", body: ""),
        .request(method: "POST", target: "/2", body: "abc"),
        .request(method: "GET", target: "/3", body: ""),
      ])
  }

  @Test func neverResynchronisesAfterARejection() {
    let raw = "GET / HTTP/1.1\r\nHost : x\r\n\r\nGET /next HTTP/1.1\r\nHost: x\r\n\r\n"
    var parser = HTTPRequestParser(limits: HTTPLimits())
    parser.append(Array(raw.utf8))
    guard case .rejected = parser.next() else {
      Issue.record("expected a rejection")
      return
    }
    parser.append(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
    guard case .rejected = parser.next() else {
      Issue.record("a rejected parser must stay rejected")
      return
    }
    #expect(parser.bufferedByteCount == 0)
  }

  @Test func decidesKeepAliveFromVersionAndConnection() {
    let cases: [(String, Bool)] = [
      ("GET / HTTP/1.1\r\nHost: x\r\n\r\n", true),
      ("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", false),
      ("GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, Close\r\n\r\n", false),
      ("GET / HTTP/1.0\r\n\r\n", false),
      ("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", true),
    ]
    for (raw, keepAlive) in cases {
      #expect(parseMessages(Array(raw.utf8)).heads.first?.keepAlive == keepAlive, "\(raw)")
    }
  }

  @Test func marksExpectContinueOnlyForHTTP11() {
    let http11 = "POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\na"
    let http10 = "POST / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\na"
    #expect(parseMessages(Array(http11.utf8)).heads.first?.expectsContinue == true)
    #expect(parseMessages(Array(http10.utf8)).heads.first?.expectsContinue == false)
  }

  @Test func keepsHeaderFieldsInOrderWithTheirSpelling() {
    let raw = "GET / HTTP/1.1\r\nHost: x\r\nX-B:  two  \r\nx-a: one\r\n\r\n"
    let head = parseMessages(Array(raw.utf8)).heads.first
    #expect(head?.headers.fields.map(\.name) == ["Host", "X-B", "x-a"])
    #expect(head?.headers["X-A"] == "one")
    #expect(head?.headers["x-b"] == "two")
  }

  // MARK: - Limits

  @Test func answers414ForARequestLineOverTheLimit() {
    let limits = HTTPLimits(maxRequestLineBytes: 64)
    // "GET /" and " HTTP/1.1" take 14 bytes.
    let fits = "GET /\(String(repeating: "a", count: 64 - 14)) HTTP/1.1\r\nHost: x\r\n\r\n"
    let tooLong = "GET /\(String(repeating: "a", count: 64 - 13)) HTTP/1.1\r\nHost: x\r\n\r\n"
    #expect(parseMessages(fits, limits: limits).count == 1)
    #expect(parseMessages(fits, limits: limits).first != .rejected(414))
    #expect(parseMessages(tooLong, limits: limits) == [.rejected(414)])
  }

  @Test func answers414BeforeTheLongLineEnds() {
    var parser = HTTPRequestParser(limits: HTTPLimits())
    parser.append(Array("GET /".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 8 * 1024))
    #expect(
      parser.next()
        == .rejected(HTTPRejection(status: 414, reason: "request line longer than 8192 bytes")))
  }

  @Test func answers431ForTooManyHeaderFields() {
    let fields = (0..<101).map { "X-\($0): v\r\n" }.joined()
    #expect(parseMessages("GET / HTTP/1.1\r\nHost: x\r\n\(fields)\r\n") == [.rejected(431)])
    let fewer = (0..<99).map { "X-\($0): v\r\n" }.joined()
    #expect(parseMessages("GET / HTTP/1.1\r\nHost: x\r\n\(fewer)\r\n").first != .rejected(431))
  }

  @Test func answers431ForAHeaderSectionOverTheLimit() {
    let big = String(repeating: "v", count: 16 * 1024)
    #expect(parseMessages("GET / HTTP/1.1\r\nHost: x\r\nX-Big: \(big)\r\n\r\n") == [.rejected(431)])
    var parser = HTTPRequestParser(limits: HTTPLimits())
    parser.append(Array("GET / HTTP/1.1\r\nX: \(big)".utf8))
    guard case .rejected(let rejection) = parser.next() else {
      Issue.record("expected 431 before the header line ends")
      return
    }
    #expect(rejection.status == 431)
  }

  @Test func answers413ForADeclaredBodyOverTheLimit() {
    let limits = HTTPLimits(maxBodyBytes: 10)
    #expect(
      parseMessages("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\n", limits: limits) == [
        .rejected(413)
      ])
    #expect(
      parseMessages(
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n0123456789", limits: limits)
        == [.request(method: "POST", target: "/", body: "0123456789")])
    #expect(
      parseMessages("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2097152\r\n\r\n") == [
        .rejected(413)
      ])
  }

  @Test func answers413ForAChunkedBodyOverTheLimit() {
    let limits = HTTPLimits(maxBodyBytes: 10)
    let raw =
      "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n6\r\n012345\r\n6\r\n012345\r\n0\r\n\r\n"
    #expect(parseMessages(raw, limits: limits).last == .rejected(413))
  }

  @Test func answers431ForTrailersOverTheLimit() {
    let limits = HTTPLimits(maxHeaderBytes: 64)
    let trailer = "X-T: \(String(repeating: "t", count: 80))\r\n"
    let raw = "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\(trailer)\r\n"
    #expect(parseMessages(raw, limits: limits).last == .rejected(431))
  }

  @Test func holdsNoMoreThanTheHeadLimitWhileWaiting() {
    var parser = HTTPRequestParser(limits: HTTPLimits())
    var rejected = false
    for _ in 0..<100 where !rejected {
      parser.append([UInt8](repeating: UInt8(ascii: "a"), count: 1024))
      if case .rejected = parser.next() { rejected = true }
    }
    #expect(rejected)
    parser.append([UInt8](repeating: 0, count: 1 << 20))
    #expect(parser.bufferedByteCount == 0)
  }
}
