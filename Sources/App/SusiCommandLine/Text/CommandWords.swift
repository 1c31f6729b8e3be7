/// Splits a command line into words the way a shell would for the simple cases: spaces
/// separate, `"…"` and `'…'` group, `\` escapes the next character. A word `ShellQuote` quoted
/// reads back as that one word.
public enum CommandWords {
  public static func split(_ text: String) throws(UsageError) -> [String] {
    var words: [String] = []
    var current = ""
    var inWord = false
    var quote: Character?
    var escaped = false
    for character in text {
      if escaped {
        current.append(character)
        escaped = false
        inWord = true
      } else if character == "\\" && quote != "'" {
        escaped = true
        inWord = true
      } else if let open = quote {
        if character == open { quote = nil } else { current.append(character) }
      } else if character == "\"" || character == "'" {
        quote = character
        inWord = true
      } else if character.isWhitespace {
        if inWord { words.append(current) }
        current = ""
        inWord = false
      } else {
        current.append(character)
        inWord = true
      }
    }
    if let quote { throw UsageError("a \(quote) quote is not closed") }
    if inWord { words.append(current) }
    return words
  }
}
