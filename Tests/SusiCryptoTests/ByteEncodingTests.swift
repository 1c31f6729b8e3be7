import SusiCrypto
import Testing

@Suite struct ByteEncodingTests {
  /// RFC 4648 §10.
  static let base64Vectors: [(String, String)] = [
    ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="),
    ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"),
  ]

  @Test(arguments: base64Vectors)
  func encodesBase64(plain: String, encoded: String) {
    #expect(ByteEncoding.base64(Array(plain.utf8)) == encoded)
  }

  @Test(arguments: base64Vectors)
  func decodesBase64(plain: String, encoded: String) {
    #expect(ByteEncoding.base64Decode(encoded) == Array(plain.utf8))
  }

  @Test func decodesBase64WithoutPadding() {
    #expect(ByteEncoding.base64Decode("Zg") == Array("f".utf8))
    #expect(ByteEncoding.base64Decode("Zm8") == Array("fo".utf8))
    #expect(ByteEncoding.base64Decode("Zm9vYmE") == Array("fooba".utf8))
  }

  @Test func encodesEveryByteValueWithTheStandardAlphabet() {
    #expect(ByteEncoding.base64([0xfb, 0xff, 0xbf]) == "+/+/")
    #expect(ByteEncoding.base64Decode("+/+/") == [0xfb, 0xff, 0xbf])
  }

  @Test func encodesURLSafeBase64WithoutPadding() {
    #expect(ByteEncoding.base64URL([0xfb, 0xff, 0xbf]) == "-_-_")
    #expect(ByteEncoding.base64URL(Array("f".utf8)) == "Zg")
    #expect(ByteEncoding.base64URL(Array("fo".utf8)) == "Zm8")
  }

  @Test(arguments: [
    "Zm9v!", "Zm9v Zg==", "Z", "Zm9vY", "-_-_", "Zm9v\n", "Zm9vä", "Z=g=", "Zm=9v", "=Zm9v",
    "Zg===", "Zm9v====",
  ])
  func refusesMalformedBase64(text: String) {
    #expect(ByteEncoding.base64Decode(text) == nil)
  }

  @Test func base64RoundTripsEveryLengthUpTo300() {
    var generator = SeededRandom(seed: 42)
    for length in 0...300 {
      let bytes = (0..<length).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
      let text = ByteEncoding.base64(bytes)
      #expect(text.utf8.count == (length + 2) / 3 * 4)
      #expect(ByteEncoding.base64Decode(text) == bytes, "length \(length)")
    }
  }

  @Test func encodesLowerCaseHex() {
    #expect(ByteEncoding.hex([]) == "")
    #expect(ByteEncoding.hex([0x00, 0x0f, 0xa5, 0xff]) == "000fa5ff")
  }

  @Test func decodesHexInEitherCase() {
    #expect(ByteEncoding.hexDecode("") == [])
    #expect(ByteEncoding.hexDecode("000fa5ff") == [0x00, 0x0f, 0xa5, 0xff])
    #expect(ByteEncoding.hexDecode("DEADbeef") == [0xde, 0xad, 0xbe, 0xef])
  }

  @Test(arguments: ["0", "abc", "zz", "0x00", "12 34", "ab-c", "é0"])
  func refusesMalformedHex(text: String) {
    #expect(ByteEncoding.hexDecode(text) == nil)
  }

  @Test func hexRoundTripsEveryByteValue() {
    let bytes = (0...255).map { UInt8($0) }
    let text = ByteEncoding.hex(bytes)
    #expect(text.utf8.count == 512)
    #expect(ByteEncoding.hexDecode(text) == bytes)
    #expect(ByteEncoding.hexDecode(text.uppercased()) == bytes)
  }
}
