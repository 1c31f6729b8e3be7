// Shell words: a word quoted so a shell (or the chat) reads it back as one word, and the
// chat's command line split back into its words.

/// Quotes text so a POSIX shell reads it back as one word, for hints people copy.
public enum ShellQuote {
  /// `"text"` when double quotes are safe, else `'text'` with embedded `'` escaped.
  public static func quote(_ text: String) -> String {
    let special: Set<Character> = ["\"", "$", "`", "\\", "!"]
    if !text.contains(where: special.contains) { return "\"\(text)\"" }
    return "'"
      + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''")
      + "'"
  }

  /// `text` as it is when a shell reads it as one plain word, else quoted.
  public static func quoteIfNeeded(_ text: String) -> String {
    let plain =
      !text.isEmpty && text.allSatisfy { $0.isLetter || $0.isNumber || "/._-+:=,@%".contains($0) }
    return plain ? text : quote(text)
  }
}

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
