import SusiCommandLine
import SusiTerminal
import Testing

@testable import SusiText

@Suite struct TextTableTests {
  let renderer = TextRenderer(width: 80, glyphs: .utf8)

  /// The column where each line's second cell starts, in display columns.
  func secondColumnStarts(_ text: String) -> [Int] {
    text.split(separator: "\n").map { line in
      let first = line.split(separator: " ", maxSplits: 1)[0]
      let rest = line.dropFirst(first.count).prefix { $0 == " " }
      return String(first).displayWidth + rest.count
    }
  }

  @Test func alignsColumnsWithCJKEmojiAndCombiningCharacters() {
    let table = TextTable(
      headers: ["Name", "City"],
      rows: [
        ["東京タワー", "Tokyo"], ["Café\u{301}", "Paris"], ["😀😀", "Smile"], ["plain", "Berlin"],
      ])
    let text = renderer.table(table)
    let lines = text.split(separator: "\n").map(String.init)
    #expect(lines.count == 6)
    let starts = secondColumnStarts(
      lines.enumerated().filter { $0.offset != 1 }.map(\.element).joined(separator: "\n"))
    #expect(Set(starts).count == 1, "second column starts at \(starts)\n\(text)")
    #expect(lines[1] == "──────────  ──────")
  }

  @Test func rightAlignsNumericColumns() {
    let text = renderer.table(
      TextTable(headers: ["Item", "Price"], rows: [["tea", "3.5"], ["cake", "12"]]))
    #expect(text == "Item  Price\n────  ─────\ntea     3.5\ncake     12")
  }

  @Test func cutsTheWidestColumnToFitTheTerminal() {
    let narrow = TextRenderer(width: 30, glyphs: .utf8)
    let long = String(repeating: "word ", count: 20)
    let text = narrow.table(TextTable(rows: [["id", long], ["2", "short"]]))
    for line in text.split(separator: "\n") { #expect(String(line).displayWidth <= 30) }
    #expect(text.contains("…"))
  }

  @Test func usesAsciiRulesWithoutUnicode() {
    let ascii = TextRenderer(width: 80, glyphs: .ascii)
    #expect(ascii.table(TextTable(headers: ["A"], rows: [["x"]])) == "A\n-\nx")
  }

  @Test func omitsTheHeaderWhenThereIsNone() {
    #expect(renderer.table(TextTable(rows: [["a", "b"], ["cc", "d"]])) == "a   b\ncc  d")
  }

  @Test func putsMultiLineCellsOnOneLine() {
    #expect(renderer.table(TextTable(rows: [["a\nb", "c"]])) == "a b  c")
  }

  @Test func boldHeadersOnlyWithColours() {
    let coloured = TextRenderer(width: 80, glyphs: .utf8, style: TerminalStyle(colors: true))
    #expect(coloured.table(TextTable(headers: ["H"], rows: [["x"]])).contains("\u{1B}[1m"))
    #expect(!renderer.table(TextTable(headers: ["H"], rows: [["x"]])).contains("\u{1B}"))
  }
}
