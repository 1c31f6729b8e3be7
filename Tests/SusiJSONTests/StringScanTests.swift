import SusiJSON
import Testing

/// Strings are scanned eight bytes at a time: whatever a string holds at whatever offset (a quote,
/// an escape, a control character, non-ASCII, bad UTF-8), the parser and the reader must see it
/// exactly where it is.
@Suite struct StringScanTests {
  /// What may sit inside a string: its JSON text, and the value it stands for (nil: refused).
  static let pieces: [(text: [UInt8], value: String?)] = [
    (Array(#"\""#.utf8), "\""),
    (Array(#"\\"#.utf8), "\\"),
    (Array(#"\n"#.utf8), "\n"),
    (Array(#"\u00e9"#.utf8), "é"),
    (Array("é".utf8), "é"),
    (Array("😀".utf8), "😀"),
    ([0x7F], "\u{7F}"),
    ([0x20], " "),
    ([0x01], nil),
    ([0x09], nil),
    ([0x1F], nil),
    ([0xFF], nil),
    ([0xC3], nil),
  ]

  /// `count` plain ASCII letters.
  static func letters(_ count: Int) -> [UInt8] {
    (0..<count).map { UInt8(ascii: "a") + UInt8($0 % 26) }
  }

  @Test func findsEveryKindOfByteAtEveryOffset() throws {
    for before in 0...19 {
      for after in [0, 1, 7, 8, 9, 17] {
        for piece in Self.pieces {
          let inner = Self.letters(before) + piece.text + Self.letters(after)
          let expected = piece.value.map {
            String(decoding: Self.letters(before), as: UTF8.self) + $0
              + String(decoding: Self.letters(after), as: UTF8.self)
          }
          // The string, then more text, so the scan runs on past its end.
          let text = [UInt8(ascii: "[")] + [0x22] + inner + [0x22] + Array(#","tail of it"]"#.utf8)
          let parsed = try? JSONParser.parse(text)
          let what = "\(before) + \(piece.text) + \(after)"
          if let expected {
            #expect(parsed == .array([.string(expected), .string("tail of it")]), "\(what)")
          } else {
            #expect(parsed == nil, "\(what)")
          }
          text.withUnsafeBytes { raw in
            var reader = JSONReader(raw)
            var viaString: String?
            do {
              try reader.enterArray()
              _ = try reader.nextElement()
              viaString = try reader.string()
            } catch {}
            #expect(viaString == expected, "\(what)")
            var again = JSONReader(raw)
            var viaBytes: JSONReader.Key?
            do {
              try again.enterArray()
              _ = try again.nextElement()
              viaBytes = try again.stringBytes()
              #expect(try again.nextElement())
              #expect(try again.string() == "tail of it")
            } catch {}
            #expect((viaBytes != nil) == (expected != nil), "\(what)")
            if let viaBytes, let expected, !viaBytes.hasEscapes {
              #expect(String(decoding: viaBytes.bytes, as: UTF8.self) == expected, "\(what)")
            }
          }
        }
      }
    }
  }

  @Test func namesTheOffsetOfAControlCharacter() {
    for before in 0...19 {
      let text = [0x22] + Self.letters(before) + [0x01] + Self.letters(12) + [0x22]
      var errors: [JSONParseError?] = []
      do {
        _ = try JSONParser.parse(text)
        errors.append(nil)
      } catch {
        errors.append(error)
      }
      text.withUnsafeBytes { raw in
        var reader = JSONReader(raw)
        do {
          _ = try reader.stringBytes()
          errors.append(nil)
        } catch {
          errors.append(error as? JSONParseError)
        }
      }
      for error in errors {
        #expect(error?.offset == 1 + before, "\(before)")
        #expect(error?.reason == "control character in a string", "\(before)")
      }
    }
  }

  @Test func refusesAStringThatNeverEnds() {
    for count in 0...20 {
      let text = [0x22] + Self.letters(count)
      #expect(throws: JSONParseError.self) { _ = try JSONParser.parse(text) }
      text.withUnsafeBytes { raw in
        var reader = JSONReader(raw)
        #expect(throws: JSONParseError.self) { _ = try reader.stringBytes() }
      }
    }
  }
}
