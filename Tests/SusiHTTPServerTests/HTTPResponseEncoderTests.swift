import SusiHTTPTypes
import Testing

@testable import SusiHTTPServer

@Suite struct HTTPResponseEncoderTests {
  static let keepAlive = HTTPResponseFraming(keepAlive: true, isHeadRequest: false, isHTTP10: false)

  func encoded(_ response: HTTPResponse, _ framing: HTTPResponseFraming = keepAlive) -> String {
    var out: [UInt8] = []
    HTTPResponseEncoder.encode(response, framing: framing, date: "DATE", into: &out)
    return String(decoding: out, as: UTF8.self)
  }

  @Test func writesStatusHeadersLengthAndBody() {
    let response = HTTPResponse(
      status: 202, headers: ["Content-Type": "application/json"], body: Array("{}".utf8))
    #expect(
      encoded(response)
        == "HTTP/1.1 202 Accepted\r\nContent-Type: application/json\r\nDate: DATE\r\nContent-Length: 2\r\n\r\n{}"
    )
  }

  @Test(arguments: [0, 9, 10, 1234, 100_000])
  func writesEveryDigitOfTheLength(length: Int) {
    let response = HTTPResponse(status: 200, body: Array(repeating: 0x61, count: length))
    #expect(
      encoded(response)
        == "HTTP/1.1 200 OK\r\nDate: DATE\r\nContent-Length: \(length)\r\n\r\n"
        + String(repeating: "a", count: length))
  }

  @Test func writesAnUnknownStatusWithItsNumber() {
    #expect(encoded(HTTPResponse(status: 599)).hasPrefix("HTTP/1.1 599 "))
    #expect(encoded(HTTPResponse(status: 42)).hasPrefix("HTTP/1.1 500 "))
  }

  @Test func replacesFramingHeadersFromTheHandler() {
    let response = HTTPResponse(
      status: 200,
      headers: ["Content-Length": "99", "Transfer-Encoding": "chunked", "Connection": "close"],
      body: Array("ok".utf8))
    let framing = HTTPResponseFraming(keepAlive: false, isHeadRequest: false, isHTTP10: false)
    #expect(
      encoded(response, framing)
        == "HTTP/1.1 200 OK\r\nDate: DATE\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
  }

  @Test func sendsNoBodyOrLengthFor204And304() {
    #expect(
      encoded(HTTPResponse(status: 204, body: Array("x".utf8)))
        == "HTTP/1.1 204 No Content\r\nDate: DATE\r\n\r\n")
    #expect(encoded(HTTPResponse(status: 304)) == "HTTP/1.1 304 Not Modified\r\nDate: DATE\r\n\r\n")
  }

  @Test func answersHeadWithTheLengthOnly() {
    let framing = HTTPResponseFraming(keepAlive: true, isHeadRequest: true, isHTTP10: false)
    #expect(
      encoded(HTTPResponse(status: 200, body: Array("abc".utf8)), framing)
        == "HTTP/1.1 200 OK\r\nDate: DATE\r\nContent-Length: 3\r\n\r\n")
  }

  @Test func answersHeadOfAStreamWithTheChunkedHead() {
    let framing = HTTPResponseFraming(keepAlive: true, isHeadRequest: true, isHTTP10: false)
    #expect(
      encoded(HTTPResponse(status: 200) { _ in }, framing)
        == "HTTP/1.1 200 OK\r\nDate: DATE\r\nTransfer-Encoding: chunked\r\n\r\n")
  }

  @Test func turnsInvalidStatusesInto500() {
    #expect(encoded(HTTPResponse(status: 101)).hasPrefix("HTTP/1.1 500 Internal Server Error\r\n"))
    #expect(encoded(HTTPResponse(status: 1000)).hasPrefix("HTTP/1.1 500 "))
  }

  @Test func keepsAHandlerDateAndSpellsOutHTTP10KeepAlive() {
    let framing = HTTPResponseFraming(keepAlive: true, isHeadRequest: false, isHTTP10: true)
    #expect(
      encoded(HTTPResponse(status: 200, headers: ["Date": "mine"]), framing)
        == "HTTP/1.1 200 OK\r\nDate: mine\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n")
  }

  @Test func framesChunks() {
    var out: [UInt8] = []
    HTTPResponseEncoder.encodeChunk(Array(repeating: UInt8(ascii: "a"), count: 26), into: &out)
    #expect(
      String(decoding: out, as: UTF8.self) == "1a\r\n\(String(repeating: "a", count: 26))\r\n")
  }

  @Test func formatsTheDateAsIMFFixdate() {
    #expect(HTTPDate.format(secondsSince1970: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
  }

  @Test func collectsStreamedWritesInATestWriter() async throws {
    let collected = Outcome()
    let writer = HTTPBodyWriter { bytes in
      await collected.record(String(decoding: bytes, as: UTF8.self))
    }
    try await writer.write("id: 1\ndata: hi\n\n")
    try await writer.write("")
    #expect(await collected.next() == "id: 1\ndata: hi\n\n")
    #expect(await collected.count() == 0)
  }
}
