import SusiCommandLine
import Testing

/// `ShellQuote` writes hints people copy to a shell or type after `/` in the chat, and
/// `CommandWords` reads the chat's words back: what one quotes, the other reads as one word.
@Suite struct ShellWordsTests {
  static let words = [
    "plain", "two words", "it's", "$HOME", #"a"b"#, #"back\slash"#, "bang!", "`tick`", "",
    "caf\u{E9} \u{1F600}",
  ]

  @Test(arguments: words) func aQuotedWordReadsBackAsThatOneWord(word: String) throws {
    #expect(try CommandWords.split(ShellQuote.quote(word)) == [word])
    #expect(try CommandWords.split(ShellQuote.quoteIfNeeded(word)) == [word])
  }

  @Test func plainWordsAreLeftAsTheyAre() {
    #expect(ShellQuote.quoteIfNeeded("/tmp/x.jsonl") == "/tmp/x.jsonl")
    #expect(ShellQuote.quoteIfNeeded("a b") == "\"a b\"")
    #expect(ShellQuote.quote("it's $5") == #"'it'\''s $5'"#)
  }
}
