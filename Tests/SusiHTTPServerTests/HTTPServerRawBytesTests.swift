import Foundation
import SusiHTTPTesting
import SusiHTTPTypes
import Testing

@testable import SusiHTTPServer

/// The server's replies checked byte for byte, without the reply parser the test client
/// shares with the HTTP client: a bug in that parser cannot hide one in the server.
@Suite struct HTTPServerRawBytesTests {
  /// The reply with its `Date` value blanked out.
  static func withoutDate(_ bytes: [UInt8]) -> String {
    let text = String(decoding: bytes, as: UTF8.self)
    guard let start = text.range(of: "\r\nDate: "),
      let end = text[start.upperBound...].range(of: "\r\n")
    else { return text }
    return text.replacingCharacters(in: start.upperBound..<end.lowerBound, with: "-")
  }

  @Test func aSizedReplyIsExactlyTheseBytes() async throws {
    try await withServer { _, port in
      let client = try LoopbackHTTPClient(port: port)
      try client.send("GET /raw HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
      let text = Self.withoutDate(try await client.readToEnd())
      #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(text)")
      #expect(text.contains("\r\nContent-Length: 9\r\n"), "\(text)")
      #expect(text.contains("\r\nConnection: close\r\n"), "\(text)")
      #expect(text.contains("\r\nDate: -\r\n"), "\(text)")
      #expect(text.hasSuffix("\r\n\r\nGET /raw "), "\(text)")
    }
  }

  @Test func aStreamedReplyIsChunkedOnTheWire() async throws {
    let handler = ClosureHandler { _ in
      HTTPResponse(status: 200, headers: ["Content-Type": "text/plain"]) { body in
        try await body.write("ab")
        try await body.write("cde")
      }
    }
    try await withServer(handler: handler) { _, port in
      let client = try LoopbackHTTPClient(port: port)
      try client.send("GET /stream HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
      let text = Self.withoutDate(try await client.readToEnd())
      #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(text)")
      #expect(text.contains("\r\nTransfer-Encoding: chunked\r\n"), "\(text)")
      #expect(text.hasSuffix("\r\n\r\n2\r\nab\r\n3\r\ncde\r\n0\r\n\r\n"), "\(text)")
    }
  }
}
