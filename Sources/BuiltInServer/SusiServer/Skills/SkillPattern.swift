/// One utterance pattern (`synonym of *`): literal words and `*` wildcards, matched
/// case-insensitively against whole words.
public struct SkillPattern: Sendable, Equatable {
  enum Token: Sendable, Equatable {
    case word(String)
    case wildcard
  }

  let tokens: [Token]
  public let text: String

  /// Reads one pattern (one `|`-separated part of a pattern line).
  public init(_ text: String) {
    self.text = text
    tokens = text.split(whereSeparator: \.isWhitespace).compactMap { raw in
      if raw == "*" || raw == "_" { return .wildcard }
      let word = SkillPattern.normalize(raw)
      return word.isEmpty ? nil : .word(word)
    }
  }

  var wildcardCount: Int { tokens.count { $0 == .wildcard } }
  var wordCount: Int { tokens.count - wildcardCount }

  /// How specific the pattern is: exact patterns beat wildcard ones, more literal words beat
  /// fewer, and a lone `*` comes last.
  var specificity: Int {
    (wildcardCount == 0 ? 10_000 : 0) + wordCount * 10 - wildcardCount
  }

  /// Lower-cases a word and strips punctuation around it, so `Coin?` matches `coin`.
  static func normalize(_ word: Substring) -> String {
    word.lowercased().trimmingPunctuation()
  }

  /// The query split into words: `normalized` for matching, `original` for captures.
  struct Words {
    var normalized: [String] = []
    var original: [String] = []

    init(_ query: String) {
      for raw in query.split(whereSeparator: \.isWhitespace) {
        let word = SkillPattern.normalize(raw)
        guard !word.isEmpty else { continue }
        normalized.append(word)
        original.append(String(raw).trimmingPunctuation())
      }
    }
  }

  /// The most words a query may have; longer queries match nothing (and fall back).
  static let maximumWords = 64

  /// The texts captured by each `*` when the pattern matches `words`, else nil.
  func match(_ words: Words) -> [String]? {
    guard words.normalized.count <= SkillPattern.maximumWords, !tokens.isEmpty else { return nil }
    var captures: [Range<Int>] = []
    var failed = Set<Int>()
    guard matchFrom(token: 0, word: 0, words.normalized, &captures, &failed) else { return nil }
    return captures.map { words.original[$0].joined(separator: " ") }
  }

  /// Backtracking match; `failed` remembers (token, word) positions that cannot match, so
  /// several wildcards cost at most tokens × words steps.
  private func matchFrom(
    token: Int, word: Int, _ words: [String], _ captures: inout [Range<Int>],
    _ failed: inout Set<Int>
  ) -> Bool {
    if token == tokens.count { return word == words.count }
    let state = token * (SkillPattern.maximumWords + 1) + word
    if failed.contains(state) { return false }
    var matched = false
    switch tokens[token] {
    case .word(let literal):
      if word < words.count, words[word] == literal {
        matched = matchFrom(token: token + 1, word: word + 1, words, &captures, &failed)
      }
    case .wildcard:
      // Leave at least one word for every later token.
      let remainingTokens = tokens.count - token - 1
      if words.count - word - remainingTokens >= 1 {
        for end in (word + 1)...(words.count - remainingTokens) {
          captures.append(word..<end)
          if matchFrom(token: token + 1, word: end, words, &captures, &failed) {
            matched = true
            break
          }
          captures.removeLast()
        }
      }
    }
    if !matched { failed.insert(state) }
    return matched
  }
}

/// The punctuation stripped from both ends of every word before matching.
private let wordPunctuation: Set<Unicode.Scalar> = Set(" ?!.,;:\"()[]{}".unicodeScalars)

extension String {
  fileprivate func trimmingPunctuation() -> String {
    let scalars = unicodeScalars
    guard let first = scalars.firstIndex(where: { !wordPunctuation.contains($0) }),
      let last = scalars.lastIndex(where: { !wordPunctuation.contains($0) })
    else { return "" }
    var out = String.UnicodeScalarView()
    out.append(contentsOf: scalars[first...last])
    return String(out)
  }
}
