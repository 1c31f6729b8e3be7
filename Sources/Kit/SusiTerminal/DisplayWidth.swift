/// How many terminal columns text takes.
///
/// `String.count` counts characters, not columns: CJK ideographs and emoji take two columns,
/// combining marks, joiners and variation selectors none. Glibc's `wcwidth` is not available to
/// Swift, so the width rules live here: East Asian Wide and Fullwidth characters and characters
/// with emoji presentation are 2 columns, nonspacing/enclosing marks and format characters 0,
/// everything else (including East Asian Ambiguous, such as `★` and `…`) 1.
///
/// A character (grapheme cluster) is as wide as its widest scalar, so `e` + U+0301, a flag, a
/// keycap or a family joined with ZWJ each count once.
enum DisplayWidth {
  /// The columns `text` takes on a terminal.
  static func of(_ text: String) -> Int {
    var total = 0
    for character in text { total += of(character) }
    return total
  }

  /// The columns one character takes: 0, 1 or 2.
  static func of(_ character: Character) -> Int {
    let scalars = character.unicodeScalars
    guard let first = scalars.first else { return 0 }
    if scalars.count == 1 { return of(first) }
    var widest = 0
    for scalar in scalars {
      if scalar == "\u{FE0F}" && first.properties.isEmoji { return 2 }
      widest = max(widest, of(scalar))
    }
    if scalars.contains("\u{FE0E}") { return min(widest, 1) }
    return widest
  }

  /// The columns one scalar takes on its own.
  static func of(_ scalar: Unicode.Scalar) -> Int {
    let value = scalar.value
    if value < 0x20 || (0x7F..<0xA0).contains(value) { return 0 }
    if value < 0x300 { return 1 }
    switch scalar.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format: return 0
    default: break
    }
    // Hangul medial vowels and final consonants join the initial consonant before them.
    if (0x1160...0x11FF).contains(value) || (0xD7B0...0xD7FF).contains(value) { return 0 }
    if scalar.properties.isEmojiPresentation || isWide(value) { return 2 }
    return 1
  }

  /// East Asian Wide (W) and Fullwidth (F) blocks that are not emoji.
  private static func isWide(_ value: UInt32) -> Bool {
    for range in wideRanges where range.contains(value) { return true }
    return false
  }

  private static let wideRanges: [ClosedRange<UInt32>] = [
    0x1100...0x115F,  // Hangul initial consonants
    0x2329...0x232A,  // angle brackets
    0x2E80...0x303E,  // CJK radicals, Kangxi, ideographic description, CJK symbols
    0x3041...0x33FF,  // kana, bopomofo, Hangul compatibility jamo, CJK compatibility
    0x3400...0x4DBF,  // CJK extension A
    0x4E00...0x9FFF,  // CJK unified ideographs
    0xA000...0xA4CF,  // Yi
    0xA960...0xA97F,  // Hangul jamo extended A
    0xAC00...0xD7A3,  // Hangul syllables
    0xF900...0xFAFF,  // CJK compatibility ideographs
    0xFE10...0xFE19,  // vertical forms
    0xFE30...0xFE6F,  // CJK compatibility forms, small form variants
    0xFF00...0xFF60,  // fullwidth forms
    0xFFE0...0xFFE6,  // fullwidth signs
    0x16FE0...0x16FE4,  // ideographic symbols
    0x17000...0x18CFF,  // Tangut
    0x1AFF0...0x1B2FF,  // kana supplement and extensions, Nushu
    0x1F200...0x1F2FF,  // enclosed ideographic supplement
    0x20000...0x2FFFD,  // CJK extensions B–F
    0x30000...0x3FFFD,  // CJK extension G and later
  ]
}

extension String {
  /// The columns this text takes on a terminal (see `DisplayWidth`).
  public var displayWidth: Int { DisplayWidth.of(self) }

  /// The text cut to at most `width` columns, ending in `ellipsis` when something was cut.
  public func truncated(toWidth width: Int, ellipsis: String = "…") -> String {
    guard width > 0 else { return "" }
    if displayWidth <= width { return self }
    let ellipsisWidth = DisplayWidth.of(ellipsis)
    guard width > ellipsisWidth else { return String(repeating: ".", count: width) }
    var kept = ""
    var used = 0
    for character in self {
      let w = DisplayWidth.of(character)
      if used + w > width - ellipsisWidth { break }
      kept.append(character)
      used += w
    }
    return kept + ellipsis
  }

  /// The text padded with spaces to `width` columns (on the right, or on the left when
  /// `alignRight`); text already that wide is returned as is.
  public func padded(toWidth width: Int, alignRight: Bool = false) -> String {
    let missing = width - displayWidth
    guard missing > 0 else { return self }
    let spaces = String(repeating: " ", count: missing)
    return alignRight ? spaces + self : self + spaces
  }
}
