import SusiCrypto

/// Mutates HTTP request heads the way smuggling probes and fuzzers do: flipped bytes, inserted
/// separators and control characters, duplicated and dropped ranges, spliced requests.
struct RequestMutator {
  var random: SeededRandom
  let corpus: [[UInt8]]

  private static let interestingBytes: [UInt8] = [
    13, 10, 32, 9, 58, 0, 44, 59, 48, 57, 102, 127, 255, 128, 43, 45, 34,
  ]
  private static let interestingTokens: [[UInt8]] = [
    "\r\n", "\r\n\r\n", "Content-Length: ", "Content-Length: 5\r\n",
    "Transfer-Encoding: chunked\r\n",
    "Transfer-Encoding: gzip\r\n", "Host: x\r\n", "99999999999999999999", "0\r\n\r\n", " chunked",
    "Expect: 100-continue\r\n", "Connection: close\r\n", "HTTP/1.0", "HTTP/1.1", "\n", "\r",
    "ffffffffffffffff\r\n",
  ].map { Array($0.utf8) }

  init(seed: UInt64, corpus: [String]) {
    random = SeededRandom(seed: seed)
    self.corpus = corpus.map { Array($0.utf8) }
  }

  mutating func next() -> [UInt8] {
    var bytes = corpus[Int.random(in: 0..<corpus.count, using: &random)]
    for _ in 0..<Int.random(in: 1...4, using: &random) { mutate(&bytes) }
    return bytes
  }

  private mutating func position(in bytes: [UInt8]) -> Int {
    Int.random(in: 0...bytes.count, using: &random)
  }

  private mutating func mutate(_ bytes: inout [UInt8]) {
    switch Int.random(in: 0..<8, using: &random) {
    case 0 where !bytes.isEmpty:
      bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(
        in: 0...255, using: &random)
    case 1:
      let byte = Self.interestingBytes[
        Int.random(in: 0..<Self.interestingBytes.count, using: &random)]
      bytes.insert(byte, at: position(in: bytes))
    case 2 where !bytes.isEmpty:
      let start = Int.random(in: 0..<bytes.count, using: &random)
      let end = min(bytes.count, start + Int.random(in: 1...8, using: &random))
      bytes.removeSubrange(start..<end)
    case 3 where !bytes.isEmpty:
      let start = Int.random(in: 0..<bytes.count, using: &random)
      let end = min(bytes.count, start + Int.random(in: 1...64, using: &random))
      let copies = Int.random(in: 1...20, using: &random)
      let range = Array(bytes[start..<end])
      bytes.insert(
        contentsOf: Array(repeating: range, count: copies).joined(), at: position(in: bytes))
    case 4:
      let token = Self.interestingTokens[
        Int.random(in: 0..<Self.interestingTokens.count, using: &random)]
      bytes.insert(contentsOf: token, at: position(in: bytes))
    case 5 where !bytes.isEmpty:
      bytes.removeLast(Int.random(in: 0...bytes.count, using: &random))
    case 6:
      let other = corpus[Int.random(in: 0..<corpus.count, using: &random)]
      bytes.insert(contentsOf: other, at: position(in: bytes))
    default:
      if let index = bytes.indices.randomElement(using: &random) {
        // Case flips and digit changes keep the text plausible.
        let byte = bytes[index]
        if (65...90).contains(byte) || (97...122).contains(byte) {
          bytes[index] = byte ^ 0x20
        } else if (48...57).contains(byte) {
          bytes[index] = UInt8.random(in: 48...57, using: &random)
        }
      }
    }
  }
}
