import SusiCrypto
import SusiEventLog
import Testing

@Suite struct CRC32CTests {
  @Test func matchesPublishedVectors() {
    #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
    #expect(CRC32C.checksum([UInt8](repeating: 0x00, count: 32)) == 0x8A91_36AA)
    #expect(CRC32C.checksum([UInt8](repeating: 0xFF, count: 32)) == 0x62A8_AB43)
    #expect(CRC32C.checksum((0..<32).map { UInt8($0) }) == 0x46DD_794E)
    #expect(CRC32C.checksum((0..<32).reversed().map { UInt8($0) }) == 0x113F_DB5C)
    #expect(CRC32C.checksum([UInt8]()) == 0)
  }

  @Test func differsFromTheIEEEPolynomial() {
    #expect(CRC32C.checksum(Array("123456789".utf8)) != 0xCBF4_3926)
  }

  @Test func agreesWithABitwiseReferenceAtEveryLengthAndAlignment() {
    var generator = SeededRandom(seed: 7)
    let data = (0..<300).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
    for start in 0..<9 {
      for end in stride(from: start, through: data.count, by: 7) {
        let slice = Array(data[start..<end])
        #expect(CRC32C.checksum(data[start..<end]) == bitwiseCRC32C(slice))
      }
    }
  }

  @Test func theProcessorsInstructionAndTheTablesAgreeAtEveryLengthAndAlignment() {
    var generator = SeededRandom(seed: 11)
    let data = (0..<300).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
    data.withUnsafeBytes { bytes in
      for start in 0..<9 {
        for end in start...bytes.count {
          let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
          let seed = UInt32(truncatingIfNeeded: end &* 0x9E37_79B9)
          #expect(
            CRC32C.checksum(slice, continuing: seed)
              == CRC32C.softwareChecksum(slice, continuing: seed))
          #expect(CRC32C.softwareChecksum(slice) == bitwiseCRC32C(Array(slice)))
        }
      }
    }
  }

  @Test func continuesAcrossPieces() {
    let data = Array("The quick brown fox jumps over the lazy dog, twice over.".utf8)
    let whole = CRC32C.checksum(data)
    for split in 0...data.count {
      let first = CRC32C.checksum(data[0..<split])
      #expect(CRC32C.checksum(data[split...], continuing: first) == whole)
    }
  }

  /// One bit at a time, straight from the definition.
  private func bitwiseCRC32C(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
    }
    return ~crc
  }
}
