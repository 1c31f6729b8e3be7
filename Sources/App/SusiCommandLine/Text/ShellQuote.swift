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
