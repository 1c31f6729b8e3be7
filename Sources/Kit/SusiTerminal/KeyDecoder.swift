/// A key pressed at a prompt, as the line editor understands it.
enum EditorKey: Equatable, Sendable {
  /// Printable text (one character, or several when pasted).
  case text(String)
  case enter, tab
  case backspace, delete
  case left, right, home, end, up, down
  /// Ctrl-W: delete the word before the cursor.
  case deleteWordBefore
  /// Ctrl-U: delete everything before the cursor.
  case deleteToStart
  /// Ctrl-K: delete everything from the cursor on.
  case deleteToEnd
  /// Ctrl-D: quit on an empty line, else delete the character under the cursor.
  case endOfInput
  /// Ctrl-C.
  case interrupt
  /// Ctrl-L: draw the line again.
  case redraw
  /// Ctrl-Z: stop the program for the shell (`fg` brings it back).
  case suspend
  /// A control byte or escape sequence with no meaning here: ignored, never typed.
  case ignored
}

/// Turns the bytes a terminal sends into keys. Pure: the terminal driver feeds it what it read.
enum KeyDecoder {
  /// An unfinished escape sequence longer than this is dropped as garbage, not waited for.
  static let longestSequence = 32

  /// The first key in `bytes` and how many bytes it took, or nil when `bytes` ends in the
  /// middle of a key (more must be read).
  static func decode(_ bytes: ArraySlice<UInt8>) -> (key: EditorKey, length: Int)? {
    guard let first = bytes.first else { return nil }
    switch first {
    case 0x1B: return escape(bytes)
    case 0x01: return (.home, 1)
    case 0x02: return (.left, 1)
    case 0x03: return (.interrupt, 1)
    case 0x04: return (.endOfInput, 1)
    case 0x05: return (.end, 1)
    case 0x06: return (.right, 1)
    case 0x08, 0x7F: return (.backspace, 1)
    case 0x09: return (.tab, 1)
    case 0x0A, 0x0D: return (.enter, 1)
    case 0x0B: return (.deleteToEnd, 1)
    case 0x0C: return (.redraw, 1)
    case 0x0E: return (.down, 1)
    case 0x10: return (.up, 1)
    case 0x15: return (.deleteToStart, 1)
    case 0x17: return (.deleteWordBefore, 1)
    case 0x1A: return (.suspend, 1)
    case ..<0x20: return (.ignored, 1)
    default: return text(bytes)
    }
  }

  /// Every complete key in `bytes`, and how many bytes they took (the rest is an unfinished key).
  static func decodeAll(_ bytes: [UInt8]) -> (keys: [EditorKey], length: Int) {
    var keys: [EditorKey] = []
    var offset = 0
    while let (key, length) = decode(bytes[offset...]) {
      keys.append(key)
      offset += length
    }
    return (keys, offset)
  }

  /// One UTF-8 encoded character; an invalid byte is ignored on its own.
  private static func text(_ bytes: ArraySlice<UInt8>) -> (key: EditorKey, length: Int)? {
    let first = bytes[bytes.startIndex]
    let length: Int
    switch first {
    case 0x20..<0x80: length = 1
    case 0xC2..<0xE0: length = 2
    case 0xE0..<0xF0: length = 3
    case 0xF0..<0xF5: length = 4
    default: return (.ignored, 1)
    }
    let continuation = bytes.dropFirst().prefix(length - 1)
    if let bad = continuation.firstIndex(where: { $0 & 0xC0 != 0x80 }) {
      return (.ignored, bad - bytes.startIndex)
    }
    guard continuation.count == length - 1 else { return nil }
    guard let decoded = String(validating: bytes.prefix(length), as: UTF8.self) else {
      return (.ignored, length)
    }
    // A C1 control character is no more printable than a C0 one.
    if let scalar = decoded.unicodeScalars.first, (0x80..<0xA0).contains(scalar.value) {
      return (.ignored, length)
    }
    return (.text(decoded), length)
  }

  /// `ESC [ …`, `ESC O x` or `ESC x`; anything not known is `.ignored` as a whole.
  private static func escape(_ bytes: ArraySlice<UInt8>) -> (key: EditorKey, length: Int)? {
    let start = bytes.startIndex
    guard bytes.count >= 2 else { return nil }
    let second = bytes[start + 1]
    switch second {
    case UInt8(ascii: "["):
      // Parameters and intermediates, then one final byte in 0x40...0x7E.
      var index = start + 2
      while index < bytes.endIndex {
        let byte = bytes[index]
        if (0x40...0x7E).contains(byte) {
          let body = String(decoding: bytes[(start + 2)...index], as: UTF8.self)
          return (csi[body] ?? .ignored, index - start + 1)
        }
        guard (0x20...0x3F).contains(byte) else { return (.ignored, index - start) }
        index += 1
      }
      // Unfinished: wait for the rest, unless it is too long to be a key at all.
      return bytes.count > longestSequence ? (.ignored, bytes.count) : nil
    case UInt8(ascii: "O"):
      guard bytes.count >= 3 else { return nil }
      return (ss3[bytes[start + 2]] ?? .ignored, 3)
    case 0x1B:
      // A second escape starts a key of its own.
      return (.ignored, 1)
    default:
      // Alt with a key, which nothing here uses.
      return (.ignored, 2)
    }
  }

  private static let csi: [String: EditorKey] = [
    "A": .up, "B": .down, "C": .right, "D": .left, "H": .home, "F": .end,
    "1~": .home, "7~": .home, "4~": .end, "8~": .end, "3~": .delete,
  ]

  private static let ss3: [UInt8: EditorKey] = [
    UInt8(ascii: "A"): .up, UInt8(ascii: "B"): .down, UInt8(ascii: "C"): .right,
    UInt8(ascii: "D"): .left, UInt8(ascii: "H"): .home, UInt8(ascii: "F"): .end,
  ]
}
