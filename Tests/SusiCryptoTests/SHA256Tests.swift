import SusiCrypto
import Testing

@Suite struct SHA256Tests {
  private func hex(_ text: String) -> String { ByteEncoding.hex(Digest.sha256(Array(text.utf8))) }

  @Test func hashesTheEmptyMessage() {
    #expect(hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
  }

  @Test func hashesAbc() {
    #expect(hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
  }

  @Test func hashesTheFiftySixByteMessage() {
    let message = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
    #expect(message.utf8.count == 56)
    #expect(hex(message) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
  }

  @Test func hashesTheHundredTwelveByteMessage() {
    let message =
      "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"
    #expect(message.utf8.count == 112)
    #expect(hex(message) == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
  }

  @Test func hashesAMillionAs() {
    let digest = Digest.sha256([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
    #expect(
      ByteEncoding.hex(digest) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
    )
  }

  /// Lengths around the 64-byte block and the 56-byte padding limit, message `a` repeated.
  @Test(arguments: [
    (0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    (1, "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"),
    (55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
    (56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
    (63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"),
    (64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
    (65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"),
    (119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"),
    (120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"),
    (127, "c57e9278af78fa3cab38667bef4ce29d783787a2f731d4e12200270f0c32320a"),
    (128, "6836cf13bac400e9105071cd6af47084dfacad4e5e302c94bfed24e013afb73e"),
  ])
  func hashesPaddingBoundaryLengths(length: Int, expected: String) {
    let digest = Digest.sha256([UInt8](repeating: UInt8(ascii: "a"), count: length))
    #expect(ByteEncoding.hex(digest) == expected)
  }

  @Test func producesThirtyTwoBytes() {
    #expect(Digest.sha256([UInt8]()).count == 32)
    #expect(Digest.sha256([UInt8](repeating: 7, count: 1000)).count == 32)
  }

  @Test func incrementalHashingMatchesOneShotAtEverySplitPoint() {
    let input = (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
    let expected = Digest.sha256(input)
    for split in 0...input.count {
      var hasher = SHA256Hasher()
      hasher.update(input[..<split])
      hasher.update(input[split...])
      #expect(hasher.finalize() == expected, "split at \(split)")
    }
  }

  @Test func incrementalHashingMatchesOneShotInManySmallPieces() {
    let input = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 17) }
    var hasher = SHA256Hasher()
    var start = 0
    var size = 1
    while start < input.count {
      let end = min(input.count, start + size)
      hasher.update(input[start..<end])
      start = end
      size = size % 13 + 1
    }
    #expect(hasher.finalize() == Digest.sha256(input))
  }

  @Test func hashesCollectionsWithoutContiguousStorage() {
    // A reversed view has no contiguous storage, so the hasher must copy it first.
    let input = Array("cba".utf8)
    #expect(Digest.sha256(input.reversed()) == Digest.sha256(Array("abc".utf8)))
    var hasher = SHA256Hasher()
    hasher.update(Array("cb".utf8).reversed())
    hasher.update("c".utf8)
    #expect(hasher.finalize() == Digest.sha256(Array("bcc".utf8)))
  }

  @Test func aHasherWithNoInputGivesTheEmptyDigest() {
    let hasher = SHA256Hasher()
    #expect(hasher.finalize() == Digest.sha256([UInt8]()))
  }
}
