import SusiHTTPTypes
import Testing

/// The one HTTP/1.1 reply parser shared by the client and the loopback test client: framing,
/// limits and malformed replies, fed whole and byte by byte.
@Suite struct HTTPResponseParserTests {
  /// Parses `text` fed in pieces of `pieceSize` bytes (0: whole), then the end of the stream
  /// when `closes`.
  static func parse(
    _ text: String, method: HTTPMethod = .get, limits: HTTPResponseLimits = HTTPResponseLimits(),
    pieceSize: Int = 0, closes: Bool = false
  ) throws(HTTPResponseParseError) -> (HTTPResponseParser.Response?, HTTPResponseParser) {
    var parser = HTTPResponseParser(requestMethod: method, limits: limits)
    var partial: HTTPResponseParser.Response?
    let bytes = Array(text.utf8)
    let size = pieceSize > 0 ? pieceSize : max(1, bytes.count)
    var offset = 0
    while offset < bytes.count {
      parser.receive(bytes[offset..<min(bytes.count, offset + size)])
      offset += size
      if let response = try parser.nextResponse(into: &partial) { return (response, parser) }
    }
    if closes { parser.receiveEnd() }
    return (try parser.nextResponse(into: &partial), parser)
  }

  @Test(arguments: [0, 1, 7])
  func aSizedBodyIsReadAndTheConnectionKept(pieceSize: Int) throws {
    let (response, parser) = try Self.parse(
      "HTTP/1.1 201 Created\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello",
      pieceSize: pieceSize)
    let reply = try #require(response)
    #expect(reply.head.status == 201)
    #expect(reply.head.reason == "Created")
    #expect(reply.head.headers["content-type"] == "text/plain")
    #expect(reply.body == Array("hello".utf8))
    #expect(reply.keepAlive)
    #expect(parser.remainder.isEmpty)
  }

  @Test(arguments: [0, 1, 3])
  func aChunkedBodyWithExtensionsAndTrailersIsJoined(pieceSize: Int) throws {
    let (response, _) = try Self.parse(
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nWiki\r\n6;x=1\r\npedia \r\n"
        + "E\r\nin \r\n\r\nchunks.\r\n0\r\nTrailer: yes\r\n\r\n",
      pieceSize: pieceSize)
    let reply = try #require(response)
    #expect(String(decoding: reply.body, as: UTF8.self) == "Wikipedia in \r\n\r\nchunks.")
    #expect(reply.chunkSizes == [4, 6, 14])
    #expect(reply.keepAlive)
  }

  @Test func aBodyWithoutLengthEndsOnlyWithTheStream() throws {
    let text = "HTTP/1.1 200 OK\r\n\r\nuntil the end"
    #expect(try Self.parse(text).0 == nil)
    let reply = try #require(try Self.parse(text, closes: true).0)
    #expect(reply.body == Array("until the end".utf8))
    #expect(!reply.keepAlive)
  }

  @Test func repliesWithoutABodyEndAtTheirHead() throws {
    let head = try #require(
      try Self.parse("HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n", method: .head).0)
    #expect(head.body.isEmpty && head.keepAlive)
    for status in ["204 No Content", "304 Not Modified"] {
      let reply = try #require(try Self.parse("HTTP/1.1 \(status)\r\n\r\n").0)
      #expect(reply.body.isEmpty)
    }
    let tunnel = try #require(
      try Self.parse("HTTP/1.1 200 Connection established\r\n\r\n", method: .connect).0)
    #expect(tunnel.head.status == 200)
  }

  @Test func interimRepliesAreSkippedUnlessAsked() throws {
    let text = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi"
    #expect(try Self.parse(text).0?.head.status == 200)
    var parser = HTTPResponseParser(requestMethod: .post, reportsInterimReplies: true)
    parser.receive(Array(text.utf8))
    guard case .head(let interim) = try parser.next() else {
      Issue.record("no interim head")
      return
    }
    #expect(interim.status == 100)
    guard case .head(let final) = try parser.next() else {
      Issue.record("no final head")
      return
    }
    #expect(final.status == 200)
  }

  @Test func theConnectionIsSpentWhenTheServerSaysSo() throws {
    let closing = try Self.parse(
      "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
    #expect(closing.0?.keepAlive == false)
    let old = try Self.parse("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n")
    #expect(old.0?.keepAlive == false)
    let kept = try Self.parse(
      "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n")
    #expect(kept.0?.keepAlive == true)
  }

  @Test func listFieldsSkipEmptyElementsAndIgnoreCase() throws {
    let closing = try Self.parse(
      "HTTP/1.1 200 OK\r\nConnection: , CLOSE ,\r\nContent-Length: 0\r\n\r\n")
    #expect(closing.0?.keepAlive == false)
    let chunked = try #require(
      try Self.parse(
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: Chunked , \r\n\r\n"
          + "2\r\nhi\r\n0\r\n\r\n"
      ).0)
    #expect(chunked.body == Array("hi".utf8))
    #expect(chunked.keepAlive)
    let lengthBesideChunked = try #require(
      try Self.parse(
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n"
          + "2\r\nhi\r\n0\r\n\r\n"
      ).0)
    #expect(!lengthBesideChunked.keepAlive)
  }

  @Test func bytesAfterTheReplyStayInTheRemainder() throws {
    let (_, parser) = try Self.parse("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nxHTTP/1.1")
    #expect(Array(parser.remainder) == Array("HTTP/1.1".utf8))
  }

  @Test func bodiesOverTheLimitAreRefusedOrCut() throws {
    let limits = HTTPResponseLimits(maximumBodyBytes: 4)
    #expect(throws: HTTPResponseParseError.bodyTooLarge(limit: 4)) {
      try Self.parse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", limits: limits)
    }
    #expect(throws: HTTPResponseParseError.bodyTooLarge(limit: 4)) {
      try Self.parse(
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n3\r\ndef\r\n0\r\n\r\n",
        limits: limits)
    }
    #expect(throws: HTTPResponseParseError.bodyTooLarge(limit: 4)) {
      try Self.parse("HTTP/1.1 200 OK\r\n\r\nhello", limits: limits, closes: true)
    }
    let cutting = HTTPResponseLimits(maximumBodyBytes: 4, truncatesLongBodies: true)
    for text in [
      "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nhel\r\n3\r\nlo!\r\n",
    ] {
      let reply = try #require(try Self.parse(text, limits: cutting, pieceSize: 1).0)
      #expect(reply.body == Array("hell".utf8))
      #expect(reply.truncated && !reply.keepAlive)
    }
  }

  @Test func headsOverTheLimitsAreRefused() {
    let limits = HTTPResponseLimits(maximumHeadBytes: 64, maximumHeaderCount: 2)
    #expect(throws: HTTPResponseParseError.headTooLarge(limit: 64)) {
      try Self.parse(
        "HTTP/1.1 200 OK\r\nX-Long: " + String(repeating: "a", count: 80), limits: limits)
    }
    #expect(throws: HTTPResponseParseError.tooManyHeaders(limit: 2)) {
      try Self.parse("HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", limits: limits)
    }
  }

  @Test(arguments: [
    "HTTP/2 200 OK\r\n\r\n",
    "HTTP/1.1 2000 OK\r\n\r\n",
    "HTTP/1.1 099 Low\r\n\r\n",
    "ICY 200 OK\r\n\r\n",
    "HTTP/1.1 200 OK\r\nNo colon here\r\n\r\n",
    "HTTP/1.1 200 OK\r\n folded: value\r\n\r\n",
    "HTTP/1.1 200 OK\r\nBad Name: value\r\n\r\n",
    "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nx",
    "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabX\r\n",
  ])
  func malformedRepliesAreRefused(_ text: String) {
    #expect {
      _ = try Self.parse(text)
    } throws: { error in
      guard case .malformed = error as? HTTPResponseParseError else { return false }
      return true
    }
  }

  @Test(
    arguments: [
      ("Content-Length: 5", "hello"), ("Content-Length:  5 ", "hello"),
      ("Content-Length: 5, 5", "hello"), ("Content-Length: 5\r\nContent-Length: 5", "hello"),
      ("content-length: ,5", "hello"), ("Content-Length:", "hello world"),
      ("Content-Length: 5, 6", nil), ("Content-Length: 5x", nil), ("Content-Length: +5", nil),
      ("Content-Length: 5\r\nContent-Length: 6", nil), ("Content-Length: 5,", "hello"),
    ] as [(String, String?)])
  func contentLengthsAreReadInEveryForm(field: String, body: String?) throws {
    let text = "HTTP/1.1 200 OK\r\n\(field)\r\n\r\nhello world"
    guard let body else {
      #expect(throws: HTTPResponseParseError.malformed("the Content-Length is not one number")) {
        try Self.parse(text)
      }
      return
    }
    let reply = try #require(try Self.parse(text, closes: true).0)
    #expect(String(decoding: reply.body, as: UTF8.self) == body)
  }

  /// The line search both parsers find heads with: the first line feed at or after an offset.
  @Test func lineFeedsAreFoundFromAnyOffset() {
    Array("ab\ncd\n\n".utf8).withUnsafeBufferPointer { bytes in
      #expect(bytes.indexOfLineFeed(from: 0) == 2)
      #expect(bytes.indexOfLineFeed(from: 2) == 2)
      #expect(bytes.indexOfLineFeed(from: 3) == 5)
      #expect(bytes.indexOfLineFeed(from: 6) == 6)
      #expect(bytes.indexOfLineFeed(from: 7) == nil)
      #expect(bytes.indexOfLineFeed(from: -1) == nil)
    }
    Array("no line end".utf8).withUnsafeBufferPointer {
      #expect($0.indexOfLineFeed(from: 0) == nil)
    }
    [UInt8]().withUnsafeBufferPointer { #expect($0.indexOfLineFeed(from: 0) == nil) }
  }

  @Test func theHeadIsReadWithEveryFieldInOrder() throws {
    let text =
      "HTTP/1.0 404 Not Found\nServer: x\r\nX-Two:  a b \r\nserver: y\nContent-Length: 0\r\n\r\n"
    let reply = try #require(try Self.parse(text, pieceSize: 3).0)
    #expect(reply.head.version == "HTTP/1.0")
    #expect(reply.head.status == 404)
    #expect(reply.head.reason == "Not Found")
    #expect(
      reply.head.headers.fields.map { "\($0.name)=\($0.value)" } == [
        "Server=x", "X-Two=a b", "server=y", "Content-Length=0",
      ])
    #expect(reply.head.headers.values("SERVER") == ["x", "y"])
    let other = try #require(try Self.parse("HTTP/1.7 200\r\nContent-Length: 0\r\n\r\n").0)
    #expect(other.head.version == "HTTP/1.7")
    #expect(other.head.reason == "")
  }

  @Test func aStreamThatEndsEarlySaysWhetherAnythingCame() throws {
    var silent = HTTPResponseParser(requestMethod: .get)
    silent.receiveEnd()
    #expect(throws: HTTPResponseParseError.endedEarly) { try silent.next() }
    #expect(!silent.hasReceivedBytes)
    #expect(throws: HTTPResponseParseError.endedEarly) {
      try Self.parse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel", closes: true)
    }
  }
}
