import Foundation
import Testing

@testable import SusiTerminal

/// Inline images: shown only on terminals that say they speak an image protocol, never in a
/// pipe or with NO_COLOR / TERM=dumb; and the escape sequences each protocol is sent.
@Suite struct TerminalImageTests {
  static let png: [UInt8] = TerminalImage.pngSignature + [0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]

  @Test func detectsKittyAndITermFromWhatTheTerminalSets() {
    #expect(TerminalImage.detect(isTerminal: true, environment: ["TERM": "xterm-kitty"]) == .kitty)
    #expect(
      TerminalImage.detect(
        isTerminal: true, environment: ["TERM": "xterm", "KITTY_WINDOW_ID": "1"])
        == .kitty)
    #expect(
      TerminalImage.detect(isTerminal: true, environment: ["TERM_PROGRAM": "iTerm.app"]) == .iTerm2)
    #expect(
      TerminalImage.detect(isTerminal: true, environment: ["TERM_PROGRAM": "WezTerm"]) == .iTerm2)
  }

  @Test func neverGuessesAndStaysOffInPipesAndPlainTerminals() {
    #expect(TerminalImage.detect(isTerminal: true, environment: ["TERM": "xterm-256color"]) == nil)
    #expect(TerminalImage.detect(isTerminal: true, environment: [:]) == nil)
    #expect(TerminalImage.detect(isTerminal: false, environment: ["TERM": "xterm-kitty"]) == nil)
    #expect(
      TerminalImage.detect(isTerminal: true, environment: ["TERM": "xterm-kitty", "NO_COLOR": "1"])
        == nil)
    #expect(
      TerminalImage.detect(
        isTerminal: true, environment: ["TERM": "dumb", "TERM_PROGRAM": "iTerm.app"]) == nil)
    // An empty NO_COLOR does not count, as for colours.
    #expect(
      TerminalImage.detect(isTerminal: true, environment: ["TERM": "xterm-kitty", "NO_COLOR": ""])
        == .kitty)
  }

  @Test func kittyGetsPNGDataInOneTransmitAndDisplayCommand() throws {
    let escape = try #require(TerminalImage.kitty.escape(for: Self.png, name: "a.png"))
    let payload = Data(Self.png).base64EncodedString()
    #expect(escape == "\u{1B}_Ga=T,f=100,m=0;\(payload)\u{1B}\\")
  }

  @Test func kittyPayloadsGoInChunksOfAtMost4096Bytes() throws {
    let big = Self.png + [UInt8](repeating: 7, count: 5000)
    let escape = try #require(TerminalImage.kitty.escape(for: big, name: "a.png"))
    let commands = escape.components(separatedBy: "\u{1B}\\").filter { !$0.isEmpty }
    #expect(commands.count == 2)
    #expect(commands[0].hasPrefix("\u{1B}_Ga=T,f=100,m=1;"))
    #expect(commands[1].hasPrefix("\u{1B}_Gm=0;"))
    let joined = commands.map { $0.split(separator: ";", maxSplits: 1)[1] }.joined()
    #expect(joined == Data(big).base64EncodedString())
    #expect(commands.allSatisfy { $0.split(separator: ";", maxSplits: 1)[1].count <= 4096 })
  }

  @Test func kittyIsNotSentImagesOtherThanPNG() {
    #expect(TerminalImage.kitty.escape(for: [0xFF, 0xD8, 0xFF, 0xE0], name: "a.jpg") == nil)
  }

  @Test func iTermGetsAnInlineFileWithNameAndSize() throws {
    let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0]
    let escape = try #require(TerminalImage.iTerm2.escape(for: jpeg, name: "cat.jpg"))
    #expect(
      escape == "\u{1B}]1337;File=name=\(Data("cat.jpg".utf8).base64EncodedString());size=4;"
        + "inline=1:\(Data(jpeg).base64EncodedString())\u{07}")
  }
}
