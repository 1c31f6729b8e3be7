import SusiCrypto
import SusiHTTPTypes
import Testing

@testable import SusiHTTPServer

@Suite struct HTTPRequestParserFuzzTests {
  /// Small limits, so that mutations that repeat ranges run into them.
  static let limits = HTTPLimits(
    maxRequestLineBytes: 256, maxHeaderBytes: 512, maxHeaderCount: 16, maxBodyBytes: 512)

  static var corpus: [String] {
    parserFixtures.map(\.raw) + [
      "POST /actions HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Type: application/json\r\nContent-Length: 13\r\nConnection: keep-alive\r\n\r\n{\"type\":\"x\"}\n",
      "GET /events/stream HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\nLast-Event-ID: 42\r\n\r\n",
    ]
  }

  /// Parses `bytes` in the given piece sizes; nil when the parser did not finish in a number
  /// of steps proportional to the input (it would be hanging).
  static func run(_ bytes: [UInt8], pieces: [Int]) -> (messages: [ParsedMessage], maxBuffered: Int)?
  {
    var parser = HTTPRequestParser(limits: limits)
    var messages: [ParsedMessage] = []
    var method = ""
    var target = ""
    var body: [UInt8] = []
    var offset = 0
    var pieceIndex = 0
    var steps = 0
    var maxBuffered = 0
    let stepLimit = bytes.count * 4 + 64
    while offset < bytes.count {
      let size = pieces.isEmpty ? bytes.count : max(1, pieces[pieceIndex % pieces.count])
      pieceIndex += 1
      let end = min(bytes.count, offset + size)
      bytes.withUnsafeBytes { parser.append(UnsafeRawBufferPointer(rebasing: $0[offset..<end])) }
      offset = end
      maxBuffered = max(maxBuffered, parser.bufferedByteCount)
      draining: while true {
        steps += 1
        if steps > stepLimit { return nil }
        switch parser.next() {
        case .needMoreBytes: break draining
        case .head(let head):
          method = head.method.text
          target = head.target
          body = []
        case .body(let piece):
          if piece.isEmpty { return nil }
          body.append(contentsOf: piece)
        case .end:
          messages.append(
            .request(method: method, target: target, body: String(decoding: body, as: UTF8.self)))
        case .rejected(let rejection):
          messages.append(.rejected(rejection.status))
          return (messages, maxBuffered)
        }
      }
    }
    return (messages, maxBuffered)
  }

  @Test func survivesAHundredThousandMutatedHeads() {
    var mutator = RequestMutator(seed: 0x5EED_CAFE, corpus: Self.corpus)
    var splitter = SeededRandom(seed: 42)
    var accepted = 0
    var rejected = 0
    // The most a parser may hold while its input arrives in pieces of up to 32 bytes: a request
    // line and a header section just over their limits (with a few leading empty lines), or a
    // chunk line or trailer section of the same size. Bodies are handed out as they arrive.
    let bound = Self.limits.maxRequestLineBytes + Self.limits.maxHeaderBytes + 64
    for iteration in 0..<100_000 {
      let input = mutator.next()
      let pieces = (0..<4).map { _ in Int.random(in: 1...32, using: &splitter) }
      guard let whole = Self.run(input, pieces: []), let split = Self.run(input, pieces: pieces)
      else {
        Issue.record(
          "parser did not finish on input \(iteration): \(String(decoding: input, as: UTF8.self).debugDescription)"
        )
        return
      }
      if whole.messages != split.messages {
        Issue.record(
          "fragmentation changed the outcome of input \(iteration): \(String(decoding: input, as: UTF8.self).debugDescription)"
        )
        return
      }
      if split.maxBuffered > bound {
        Issue.record("parser held \(split.maxBuffered) bytes for input \(iteration)")
        return
      }
      if whole.messages.contains(where: { if case .rejected = $0 { true } else { false } }) {
        rejected += 1
      } else {
        accepted += 1
      }
    }
    // Mutations must produce both kinds, or the corpus has stopped exercising the checks.
    #expect(accepted > 1000)
    #expect(rejected > 1000)
  }
}
