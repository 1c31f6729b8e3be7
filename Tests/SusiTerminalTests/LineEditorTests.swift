import Testing

@testable import SusiTerminal

/// The chat's line editor as a pure state machine: keys in, line and outcome out.
@Suite struct LineEditorTests {
  /// An editor after typing `keys`, and the outcome of the last key.
  func typed(
    _ keys: [EditorKey], history: [String] = [], completions: CompletionWords = CompletionWords()
  ) -> (editor: LineEditor, last: LineEditor.Outcome?) {
    var editor = LineEditor(history: history, completions: completions)
    var last: LineEditor.Outcome?
    for key in keys { last = editor.handle(key) }
    return (editor, last)
  }

  func text(_ string: String) -> [EditorKey] { string.map { .text(String($0)) } }

  @Test func typingInsertsAtTheCursorAndEnterSubmits() {
    let (editor, last) = typed(text("helo") + [.left, .text("l"), .end, .text("!"), .enter])
    #expect(last == .submit("hello!"))
    #expect(editor.cursor == 6)
  }

  @Test func leftRightHomeEndStopAtTheEdges() {
    var editor = LineEditor()
    #expect(editor.handle(.left) == .unchanged)
    #expect(editor.handle(.right) == .unchanged)
    for key in text("abc") { _ = editor.handle(key) }
    #expect(editor.handle(.right) == .unchanged)
    _ = editor.handle(.home)
    #expect(editor.cursor == 0)
    #expect(editor.handle(.left) == .unchanged)
    _ = editor.handle(.right)
    #expect(editor.cursor == 1)
    _ = editor.handle(.end)
    #expect(editor.cursor == 3)
  }

  @Test func backspaceAndDeleteRemoveAroundTheCursor() {
    let (editor, _) = typed(text("abcd") + [.left, .backspace, .delete])
    #expect(editor.text == "ab")
    #expect(editor.cursor == 2)
    var empty = LineEditor()
    #expect(empty.handle(.backspace) == .unchanged)
    #expect(empty.handle(.delete) == .unchanged)
  }

  @Test func ctrlWDeletesTheWordBeforeTheCursor() {
    let (editor, _) = typed(text("what is  the time  ") + [.deleteWordBefore])
    #expect(editor.text == "what is  the ")
    let (middle, _) = typed(text("a bc d") + [.left, .left, .deleteWordBefore])
    #expect(middle.text == "a  d")
    #expect(middle.cursor == 2)
  }

  @Test func ctrlUAndCtrlKDeleteToTheStartAndToTheEnd() {
    let (start, _) = typed(text("hello world") + [.left, .left, .deleteToStart])
    #expect(start.text == "ld")
    #expect(start.cursor == 0)
    let (end, _) = typed(text("hello world") + [.home, .right, .deleteToEnd])
    #expect(end.text == "h")
    #expect(end.cursor == 1)
  }

  @Test func ctrlDQuitsOnlyOnAnEmptyLine() {
    #expect(typed([.endOfInput]).last == .endOfInput)
    let (editor, last) = typed(text("ab") + [.home, .endOfInput])
    #expect(last == .redraw)
    #expect(editor.text == "b")
  }

  @Test func ctrlCDropsTheLine() {
    let (editor, last) = typed(text("half a question") + [.interrupt])
    #expect(last == .interrupted)
    #expect(editor.text.isEmpty)
  }

  @Test func ctrlZSuspendsAndKeepsTheLine() {
    let (editor, last) = typed(text("half") + [.suspend])
    #expect(last == .suspend)
    #expect(editor.text == "half")
  }

  @Test func ignoredKeysChangeNothing() {
    let (editor, last) = typed(text("hi") + [.ignored])
    #expect(last == .unchanged)
    #expect(editor.text == "hi")
  }

  @Test func upAndDownWalkTheHistoryAndKeepTheDraft() {
    var editor = LineEditor(history: ["first", "second"])
    for key in text("dra") { _ = editor.handle(key) }
    #expect(editor.handle(.down) == .unchanged)
    _ = editor.handle(.up)
    #expect(editor.text == "second")
    #expect(editor.cursor == 6)
    _ = editor.handle(.up)
    #expect(editor.text == "first")
    #expect(editor.handle(.up) == .unchanged)
    _ = editor.handle(.down)
    _ = editor.handle(.down)
    #expect(editor.text == "dra")
    _ = editor.handle(.up)
    _ = editor.handle(.text("!"))
    #expect(editor.handle(.enter) == .submit("second!"))
  }

  @Test func upWithNoHistoryDoesNothing() {
    let (editor, last) = typed([.up])
    #expect(last == .unchanged)
    #expect(editor.text.isEmpty)
  }

  @Test func wideCharactersAndCombiningMarks() {
    let (editor, _) = typed(text("日本") + [.left, .backspace])
    #expect(editor.text == "本")
    #expect(editor.view(prompt: "> ", width: 80).cursorColumn == 2)
    // A combining accent typed after `e` joins it: one character, one column.
    let (accent, _) = typed([.text("e"), .text("\u{301}")])
    #expect(accent.characters.count == 1)
    #expect(accent.cursor == 1)
    #expect(accent.view(prompt: "> ", width: 80).cursorColumn == 3)
  }

  @Test func aPasteStopsAtTheLongestLine() {
    var editor = LineEditor()
    for _ in 0..<LineEditor.maximumLength { _ = editor.handle(.text("x")) }
    #expect(editor.handle(.text("y")) == .unchanged)
    #expect(editor.characters.count == LineEditor.maximumLength)
    #expect(editor.handle(.backspace) == .redraw)
  }

  @Test func viewPutsTheCursorAfterThePromptInColumns() {
    let (editor, _) = typed(text("a😀b") + [.left])
    let view = editor.view(prompt: "> ", width: 80)
    #expect(view.text == "a😀b")
    #expect(view.cursorColumn == 5)
  }

  @Test func aLongLineScrollsSoTheCursorStaysInView() {
    let line = String(repeating: "x", count: 30) + "end"
    let (editor, _) = typed(text(line))
    let view = editor.view(prompt: "> ", width: 20)
    #expect(view.text.hasSuffix("end"))
    #expect(view.cursorColumn < 20)
    #expect(DisplayWidth.of("> " + view.text) < 20)
    let (home, _) = typed(text(line) + [.home])
    let start = home.view(prompt: "> ", width: 20)
    #expect(start.cursorColumn == 2)
    #expect(start.text == String(repeating: "x", count: 17))
    let (wide, _) = typed(text(String(repeating: "中", count: 20)))
    let wideView = wide.view(prompt: "> ", width: 21)
    #expect(DisplayWidth.of("> " + wideView.text) <= 20)
    #expect(wideView.cursorColumn <= 20)
  }

  // MARK: Completion

  static let skills = ["wikipedia", "weather", "capitals", "World population"]
  let words = CompletionWords(
    commands: ["/skills", "/skill", "/settings", "/set", "/search", "/sync", "/help"],
    arguments: [
      "/skill": skills, "/rate": skills,
      "/skills": ["Knowledge", "Entertainment", "Movies and TV"],
    ])

  @Test func tabCompletesAUniqueCommandWithASpace() {
    let (editor, last) = typed(text("/he") + [.tab], completions: words)
    #expect(last == .redraw)
    #expect(editor.text == "/help ")
  }

  @Test func tabExtendsToTheCommonPrefixThenListsTheChoices() {
    let (editor, last) = typed(text("/sk") + [.tab], completions: words)
    #expect(editor.text == "/skill")
    #expect(last == .redraw)
    var again = editor
    #expect(again.handle(.tab) == .candidates(["/skill", "/skills"]))
    #expect(again.text == "/skill")
    let (settings, _) = typed(text("/se") + [.tab], completions: words)
    #expect(settings.text == "/se")
  }

  @Test func tabCompletesSkillAndGroupNamesAfterTheirCommands() {
    #expect(
      typed(text("/skill wi") + [.tab], completions: words).editor.text == "/skill wikipedia ")
    #expect(typed(text("/rate ca") + [.tab], completions: words).editor.text == "/rate capitals ")
    #expect(
      typed(text("/skills kn") + [.tab], completions: words).editor.text == "/skills Knowledge ")
    #expect(
      typed(text("/skill w") + [.tab], completions: words).last
        == .candidates(["weather", "wikipedia", "World population"]))
    // Names hold spaces: the whole rest of the line is the name typed so far.
    #expect(
      typed(text("/skill world p") + [.tab], completions: words).editor.text
        == "/skill World population ")
    #expect(
      typed(text("/skills movies a") + [.tab], completions: words).editor.text
        == "/skills Movies and TV ")
  }

  @Test func tabDoesNothingInAQuestionOrWithoutAMatch() {
    #expect(typed(text("what is") + [.tab], completions: words).last == .unchanged)
    #expect(typed(text("/zz") + [.tab], completions: words).last == .unchanged)
    #expect(typed(text("/rate wikipedia 5") + [.tab], completions: words).last == .unchanged)
    #expect(typed([.tab], completions: words).last == .unchanged)
  }

  @Test func tabInTheMiddleOfALineCompletesTheWordBeforeTheCursor() {
    let (editor, _) = typed(text("/he x") + [.left, .left, .tab], completions: words)
    #expect(editor.text == "/help x")
    #expect(editor.cursor == 5)
  }
}

/// Bytes from a terminal turned into keys.
@Suite struct KeyDecoderTests {
  func keys(_ bytes: [UInt8]) -> [EditorKey] { KeyDecoder.decodeAll(bytes).keys }
  func keys(_ text: String) -> [EditorKey] { keys(Array(text.utf8)) }

  @Test func arrowsHomeEndAndDeleteInBothEncodings() {
    #expect(keys("\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D") == [.up, .down, .right, .left])
    #expect(keys("\u{1B}OA\u{1B}OB\u{1B}OC\u{1B}OD") == [.up, .down, .right, .left])
    #expect(keys("\u{1B}[H\u{1B}[F\u{1B}OH\u{1B}OF") == [.home, .end, .home, .end])
    #expect(keys("\u{1B}[1~\u{1B}[4~\u{1B}[7~\u{1B}[8~") == [.home, .end, .home, .end])
    #expect(keys("\u{1B}[3~") == [.delete])
  }

  @Test func controlKeys() {
    #expect(
      keys([1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 16, 21, 23, 127]) == [
        .home, .left, .interrupt, .endOfInput, .end, .right, .backspace, .tab, .enter,
        .deleteToEnd, .redraw, .enter, .down, .up, .deleteToStart, .deleteWordBefore, .backspace,
      ])
    #expect(keys([0x1A]) == [.suspend])
    #expect(keys([0, 7, 0x1C]) == [.ignored, .ignored, .ignored])
  }

  @Test func unknownEscapeSequencesAreIgnoredWhole() {
    #expect(keys("\u{1B}[1;5Cx") == [.ignored, .text("x")])
    #expect(keys("\u{1B}[15~x") == [.ignored, .text("x")])
    #expect(keys("\u{1B}[200~x") == [.ignored, .text("x")])
    #expect(keys("\u{1B}OPx") == [.ignored, .text("x")])
    #expect(keys("\u{1B}xy") == [.ignored, .text("y")])
    #expect(keys("\u{1B}\u{1B}[A") == [.ignored, .up])
    // A long sequence is dropped whole; an unfinished one too long to be a key is not waited for.
    let long = "\u{1B}[" + String(repeating: "1", count: 40) + "~x"
    #expect(keys(long) == [.ignored, .text("x")])
    let unfinished = Array(("\u{1B}[" + String(repeating: "1", count: 40)).utf8)
    #expect(KeyDecoder.decode(unfinished[...])?.length == unfinished.count)
    #expect(keys("\u{1B}[\u{01}") == [.ignored, .home])
  }

  @Test func aKeySplitAcrossReadsWaitsForTheRest() {
    #expect(KeyDecoder.decode(Array("\u{1B}".utf8)[...]) == nil)
    #expect(KeyDecoder.decode(Array("\u{1B}[".utf8)[...]) == nil)
    #expect(KeyDecoder.decode(Array("\u{1B}[1".utf8)[...]) == nil)
    #expect(KeyDecoder.decode(Array("\u{1B}O".utf8)[...]) == nil)
    let euro = Array("€".utf8)
    #expect(KeyDecoder.decode(euro.prefix(2)) == nil)
    let (decoded, length) = KeyDecoder.decodeAll(Array("ab".utf8) + euro.prefix(1))
    #expect(decoded == [.text("a"), .text("b")])
    #expect(length == 2)
  }

  @Test func utf8TextAndInvalidBytes() {
    #expect(keys("é日😀") == [.text("é"), .text("日"), .text("😀")])
    #expect(keys([0xFF, 0x41]) == [.ignored, .text("A")])
    #expect(keys([0xC3, 0x41]) == [.ignored, .text("A")])
    #expect(keys([0xC2, 0x85]) == [.ignored], "a C1 control is not text")
    #expect(keys([0xED, 0xA0, 0x80]) == [.ignored], "a surrogate is not text")
  }
}
