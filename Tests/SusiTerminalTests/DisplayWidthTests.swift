import Testing

@testable import SusiTerminal

@Suite struct DisplayWidthTests {
  @Test func asciiTakesOneColumnPerCharacter() {
    #expect("hello".displayWidth == 5)
  }

  @Test func cjkAndFullwidthTakeTwoColumns() {
    #expect("中文".displayWidth == 4)
    #expect("日本語テキスト".displayWidth == 14)
    #expect("한국어".displayWidth == 6)
    #expect("ＡＢ".displayWidth == 4)
  }

  @Test func emojiWithEmojiPresentationTakeTwoColumns() {
    #expect("😀".displayWidth == 2)
    #expect("⭐".displayWidth == 2)
    #expect("🇩🇪".displayWidth == 2)
    #expect("👨‍👩‍👧".displayWidth == 2)
    #expect("❤️".displayWidth == 2)
    #expect("1️⃣".displayWidth == 2)
  }

  @Test func combiningMarksJoinersAndSelectorsTakeNoColumns() {
    #expect("e\u{301}".displayWidth == 1)
    #expect("\u{301}".displayWidth == 0)
    #expect("\u{200D}".displayWidth == 0)
    #expect("\u{FE0F}".displayWidth == 0)
    #expect("a\u{200B}b".displayWidth == 2)
  }

  @Test func ambiguousWidthCharactersTakeOneColumn() {
    #expect("★☆…█│".displayWidth == 5)
    #expect("❤".displayWidth == 1)
  }

  @Test func truncationKeepsWithinTheWidthAndEndsInAnEllipsis() {
    #expect("hello world".truncated(toWidth: 8) == "hello w…")
    #expect("hello".truncated(toWidth: 5) == "hello")
    #expect("中文中文".truncated(toWidth: 5) == "中文…")
    #expect("中文中文".truncated(toWidth: 5).displayWidth <= 5)
    #expect("hello world".truncated(toWidth: 8, ellipsis: "...") == "hello...")
    #expect("hello".truncated(toWidth: 0) == "")
  }

  @Test func paddingCountsColumnsNotCharacters() {
    #expect("中".padded(toWidth: 4) == "中  ")
    #expect("7".padded(toWidth: 3, alignRight: true) == "  7")
  }

  @Test func terminalSafeTextDropsEscapeSequencesAndControls() {
    #expect("a\u{1B}[31mred\u{7}\tb\nc".terminalSafe == "a[31mred b\nc")
    #expect("  one\n two\t three  ".singleLine == "one two three")
  }
}
