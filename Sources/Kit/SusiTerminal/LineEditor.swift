/// The words Tab completes in the line editor.
public struct CompletionWords: Equatable, Sendable {
  /// Commands, completed as the first word of a line.
  public var commands: [String]
  /// The words that follow a command, by command (completed after the command and a space).
  public var arguments: [String: [String]]

  public init(commands: [String] = [], arguments: [String: [String]] = [:]) {
    self.commands = commands
    self.arguments = arguments
  }
}

/// The line being typed at a prompt: keys in, what happened out. Pure (no terminal, no
/// files): the terminal driver feeds it keys and draws `view(prompt:width:)`.
struct LineEditor: Sendable {
  /// What a key did.
  enum Outcome: Equatable, Sendable {
    /// The line changed (or the cursor moved): draw it again.
    case redraw
    /// Nothing to do (ring the bell at most).
    case unchanged
    /// Several completions fit: show them, then the line again.
    case candidates([String])
    /// Enter: the finished line.
    case submit(String)
    /// Ctrl-D on an empty line.
    case endOfInput
    /// Ctrl-C: the line was dropped.
    case interrupted
    /// Ctrl-Z: stop the program; the line stays for when it goes on.
    case suspend
  }

  private(set) var characters: [Character] = []
  /// Where the cursor is, in characters from the start.
  private(set) var cursor = 0
  /// Earlier lines, oldest first.
  let history: [String]
  let completions: CompletionWords
  /// Which history line is shown; `history.count` is the line being typed.
  private var historyIndex: Int
  /// The line being typed, kept while older lines are shown.
  private var draft: [Character] = []

  init(history: [String] = [], completions: CompletionWords = CompletionWords()) {
    self.history = history
    self.completions = completions
    historyIndex = history.count
  }

  /// The line as typed so far.
  var text: String { String(characters) }

  mutating func handle(_ key: EditorKey) -> Outcome {
    switch key {
    case .text(let text): return insert(text)
    case .enter: return .submit(self.text)
    case .tab: return complete()
    case .backspace:
      guard cursor > 0 else { return .unchanged }
      characters.remove(at: cursor - 1)
      cursor -= 1
    case .delete:
      guard cursor < characters.count else { return .unchanged }
      characters.remove(at: cursor)
    case .left:
      guard cursor > 0 else { return .unchanged }
      cursor -= 1
    case .right:
      guard cursor < characters.count else { return .unchanged }
      cursor += 1
    case .home: cursor = 0
    case .end: cursor = characters.count
    case .up: return recall(historyIndex - 1)
    case .down: return recall(historyIndex + 1)
    case .deleteWordBefore:
      var start = cursor
      while start > 0 && characters[start - 1].isWhitespace { start -= 1 }
      while start > 0 && !characters[start - 1].isWhitespace { start -= 1 }
      guard start < cursor else { return .unchanged }
      characters.removeSubrange(start..<cursor)
      cursor = start
    case .deleteToStart:
      guard cursor > 0 else { return .unchanged }
      characters.removeSubrange(0..<cursor)
      cursor = 0
    case .deleteToEnd:
      guard cursor < characters.count else { return .unchanged }
      characters.removeSubrange(cursor...)
    case .endOfInput:
      if characters.isEmpty { return .endOfInput }
      return handle(.delete)
    case .interrupt:
      characters = []
      cursor = 0
      return .interrupted
    case .redraw: return .redraw
    case .suspend: return .suspend
    case .ignored: return .unchanged
    }
    return .redraw
  }

  /// Inserts `text` at the cursor; a combining mark joins the character before it. Past
  /// `maximumLength` characters (a runaway paste) nothing more is taken.
  private mutating func insert(_ text: String) -> Outcome {
    guard characters.count + text.count <= Self.maximumLength else { return .unchanged }
    // Only the character before can join what is typed, so only it is put together again
    // (a pasted line stays linear, not quadratic).
    let from = max(0, cursor - 1)
    let joined = Array(String(characters[from..<cursor]) + text)
    characters.replaceSubrange(from..<cursor, with: joined)
    cursor = from + joined.count
    return .redraw
  }

  /// The longest line the editor takes, in characters.
  static let maximumLength = 100_000

  private mutating func recall(_ index: Int) -> Outcome {
    guard index >= 0, index <= history.count, index != historyIndex else { return .unchanged }
    if historyIndex == history.count { draft = characters }
    historyIndex = index
    characters = index == history.count ? draft : Array(history[index])
    cursor = characters.count
    return .redraw
  }

  // MARK: Completion

  /// Completes what is before the cursor: the command at the start of a line, or the word
  /// after the command that takes one (words may hold spaces, so the whole rest of the line
  /// before the cursor is the word typed so far).
  private mutating func complete() -> Outcome {
    let head = characters[..<cursor]
    guard let first = head.first, !first.isWhitespace else { return .unchanged }
    var start = 0
    let words: [String]
    if let space = head.firstIndex(where: \.isWhitespace) {
      guard let arguments = completions.arguments[String(head[..<space])] else {
        return .unchanged
      }
      words = arguments
      start = space
      while start < cursor && characters[start].isWhitespace { start += 1 }
    } else {
      words = completions.commands
    }
    let word = String(characters[start..<cursor])
    let wanted = word.lowercased()
    var seen = Set<String>()
    let matches = words.filter {
      $0.lowercased().hasPrefix(wanted) && seen.insert($0.lowercased()).inserted
    }.sorted { $0.lowercased() < $1.lowercased() }
    guard let first = matches.first else { return .unchanged }
    if matches.count == 1 {
      let atEnd = cursor == characters.count || !characters[cursor].isWhitespace
      replace(start..<cursor, with: first + (atEnd ? " " : ""))
      return .redraw
    }
    let common = matches.dropFirst().reduce(Array(first)) { shared, name in
      Array(zip(shared, name).prefix { $0.lowercased() == $1.lowercased() }.map(\.0))
    }
    if common.count > word.count {
      replace(start..<cursor, with: String(common))
      return .redraw
    }
    return .candidates(matches)
  }

  private mutating func replace(_ range: Range<Int>, with text: String) {
    characters.replaceSubrange(range, with: Array(text))
    cursor = range.lowerBound + text.count
  }

  // MARK: Drawing

  /// What to show after `prompt` on a terminal `width` columns wide, and the column the cursor
  /// goes to. A line too wide for the terminal scrolls sideways so the cursor stays in view.
  func view(prompt: String, width: Int) -> (text: String, cursorColumn: Int) {
    let promptWidth = DisplayWidth.of(prompt)
    // One column stays free so the cursor never wraps to the next row.
    let room = max(1, width - promptWidth - 1)
    let widths = characters.map { DisplayWidth.of($0) }
    var start = 0
    var beforeCursor = widths[..<cursor].reduce(0, +)
    while beforeCursor > room && start < cursor {
      beforeCursor -= widths[start]
      start += 1
    }
    var end = start
    var used = 0
    while end < characters.count && used + widths[end] <= room {
      used += widths[end]
      end += 1
    }
    return (String(characters[start..<max(end, start)]), promptWidth + beforeCursor)
  }
}
