import SusiCrypto
import Testing

@Suite struct DigestUtilityTests {
  @Test func md5OfTheEmptyMessage() {
    #expect(ByteEncoding.hex(Digest.md5([UInt8]())) == "d41d8cd98f00b204e9800998ecf8427e")
  }

  @Test func md5OfAbc() {
    #expect(ByteEncoding.hex(Digest.md5(Array("abc".utf8))) == "900150983cd24fb0d6963f7d28e17f72")
  }

  @Test func md5AcceptsAnyByteCollection() {
    let text = "The quick brown fox jumps over the lazy dog"
    #expect(ByteEncoding.hex(Digest.md5(text.utf8)) == "9e107d9d372bb6826bd81d3542a419d6")
  }

  @Test func constantTimeEqualAcceptsEqualBytes() {
    #expect(Digest.constantTimeEqual([], []))
    #expect(Digest.constantTimeEqual([1, 2, 3], [1, 2, 3]))
    let long = (0..<1000).map { UInt8(truncatingIfNeeded: $0) }
    #expect(Digest.constantTimeEqual(long, long))
  }

  @Test func constantTimeEqualRefusesAnyDifferingByte() {
    let base = (0..<64).map { UInt8($0) }
    for i in base.indices {
      var other = base
      other[i] ^= 0x01
      #expect(!Digest.constantTimeEqual(base, other), "byte \(i)")
    }
  }

  @Test func constantTimeEqualRefusesDifferentLengths() {
    #expect(!Digest.constantTimeEqual([1, 2, 3], [1, 2]))
    #expect(!Digest.constantTimeEqual([], [0]))
  }

  @Test func randomBytesHaveTheAskedLength() {
    #expect(Digest.randomBytes(0).isEmpty)
    #expect(Digest.randomBytes(1).count == 1)
    #expect(Digest.randomBytes(64).count == 64)
  }

  @Test func randomBytesDifferBetweenCalls() {
    // 32 random bytes repeating is a 2^-256 event.
    #expect(Digest.randomBytes(32) != Digest.randomBytes(32))
  }
}
