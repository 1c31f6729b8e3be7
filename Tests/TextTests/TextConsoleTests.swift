import Testing

@testable import SusiText

/// How wide the text frontend's console writes.
@Suite struct TextConsoleTests {
  @Test func outputInAPipeIsNotCutUnlessColumnsSaysSo() {
    #expect(
      TextConsole.outputWidth(isTerminal: false, environment: [:]) { 50 }
        == TextRenderer.unlimitedWidth)
    #expect(
      TextConsole.outputWidth(isTerminal: false, environment: ["COLUMNS": "120"]) { 50 } == 120)
    #expect(TextConsole.outputWidth(isTerminal: true, environment: ["COLUMNS": "120"]) { 50 } == 50)
  }
}
