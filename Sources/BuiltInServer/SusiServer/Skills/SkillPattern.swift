import Foundation
import Synchronization

/// One utterance (`what is *`), compiled as the real server's `SusiUtterance` does: normalized,
/// `_` read as `*`, a `*` at an edge of the expression or between spaces capturing any text
/// (`(.*)`), a `*` glued to a word capturing the rest of it (`who*`: `who ?(.*)`), `+` one word,
/// and anything else read as a regular expression. Without a capture the utterance must equal
/// the normalized query.
public struct SkillPattern: Sendable {
  /// The utterance as written.
  public let text: String
  /// The regular expression the real server makes of it; its length ranks intents.
  /// The length of the regular expression the real server makes of it (UTF-16 units, as
  /// Java counts): it ranks intents.
  let size: Int
  let matcher: Matcher
  /// The words of the expression an intent can be found by (`SusiIntent.computeKeysFromUtterance`):
  /// lower-case, letters and digits only, longer than one character. Empty: tried always.
  let keys: [String]

  /// A lone `*`: it would match every query.
  public let isCatchAll: Bool

  /// Why the utterance can never match (a regular expression that does not compile), or nil.
  public var problem: String? {
    if case .regex(let box) = matcher, box.regex == nil {
      return "the utterance '\(text)' is not a valid regular expression; it never matches"
    }
    return nil
  }

  enum Piece: Sendable, Equatable {
    case literal([UInt8])
    /// ` ?`: a space or none.
    case optionalSpace
    /// `(.*)`: any text, captured.
    case any
    /// `(\S+)`: one word, captured.
    case word
  }

  enum Matcher: Sendable {
    /// No capture: the normalized query must equal this text.
    case exact(String)
    /// Literal text, optional spaces and captures, matched without a regex engine.
    case pieces([Piece])
    /// Other regular-expression syntax.
    case regex(RegexBox)
  }

  /// A compiled regular expression shared by copies of the pattern.
  final class RegexBox: Sendable {
    let regex: NSRegularExpression?
    init(_ expression: String) {
      regex = try? NSRegularExpression(pattern: "^(?:" + expression + ")$", options: [])
    }
  }

  /// Compiles one utterance (one `|`-separated part of an utterance line).
  public init(_ text: String) {
    self.text = text
    var scalars = SkillPattern.normalizedScalars(text, keepCase: false)
    var special = false
    for index in scalars.indices {
      switch scalars[index] {
      case "_":
        scalars[index] = "*"
        special = true
      case "#": scalars[index] = "^"
      case "*", "+", "[", "]": special = true
      default: break
      }
    }
    var hasCapture = false
    if special {
      scalars = SkillPattern.translate(scalars, meta: "*", into: SkillPattern.anyText, &hasCapture)
      scalars = SkillPattern.replaceInner(
        scalars, meta: "*", with: SkillPattern.anyText, &hasCapture)
      scalars = SkillPattern.translate(scalars, meta: "+", into: SkillPattern.oneWord, &hasCapture)
      scalars = SkillPattern.replaceInner(
        scalars, meta: "+", with: SkillPattern.oneWord, &hasCapture)
      var escaped: [Unicode.Scalar] = []
      escaped.reserveCapacity(scalars.count)
      for scalar in scalars {
        if scalar == "[" || scalar == "]" { escaped.append("\\") }
        escaped.append(scalar)
      }
      scalars = escaped
    } else if scalars.isEmpty {
      scalars = SkillPattern.anyText
      hasCapture = true
    }
    let expression = SkillPattern.string(scalars)
    size = expression.utf16.count
    isCatchAll = expression == "(.*)"
    if !hasCapture && !scalars.contains("*") {
      matcher = .exact(
        scalars.contains("\\") ? SkillPattern.string(scalars.filter { $0 != "\\" }) : expression)
    } else if let pieces = SkillPattern.pieces(scalars) {
      matcher = .pieces(pieces)
    } else {
      matcher = .regex(RegexBox(expression))
    }
    // A wildcard glued to a word (`who*`: `who ?(.*)`) matches words that are no query token
    // (`whoever`): such an utterance is tried for every query, not found by its words (the real
    // server finds it only by `who`).
    let glued =
      scalars.count > 2
      && scalars.indices.dropLast().contains { index in
        scalars[index] == " " && scalars[index + 1] == "?"
      }
    keys = glued ? [] : SkillPattern.meatTokens(scalars)
  }

  static let anyText = Array("(.*)".unicodeScalars)
  static let oneWord = Array("(^\\S+)".unicodeScalars)

  static func string(_ scalars: some Collection<Unicode.Scalar>) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(scalars.count)
    for scalar in scalars {
      if scalar.isASCII {
        bytes.append(UInt8(scalar.value))
      } else if let encoded = UTF8.encode(scalar) {
        bytes.append(contentsOf: encoded)
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  // MARK: - Compiling

  /// The canonical form of utterances and queries (`SusiUtterance.normalizeExpression`):
  /// trimmed, lower case, `,` and `;:` as spaces, no double spaces, no `?!:.` at the end.
  static func normalize(_ text: String, keepCase: Bool = false) -> String {
    string(normalizedScalars(text, keepCase: keepCase))
  }

  static func normalizedScalars(_ text: String, keepCase: Bool) -> [Unicode.Scalar] {
    let source: String
    if keepCase || !text.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A || $0 >= 0x80 }) {
      source = text
    } else {
      source = text.lowercased()
    }
    var out: [Unicode.Scalar] = []
    out.reserveCapacity(source.utf8.count)
    var iterator = source.unicodeScalars.makeIterator()
    var pending = iterator.next()
    while let scalar = pending {
      pending = iterator.next()
      if scalar == "," {
        if out.last != " " { out.append(" ") }
      } else if scalar == ";", pending == ":" {
        pending = iterator.next()
        if out.last != " " { out.append(" ") }
      } else if scalar == " " {
        if out.last != " " { out.append(" ") }
      } else {
        out.append(scalar)
      }
    }
    var start = 0
    while start < out.count, out[start].isSpace { start += 1 }
    var end = out.count
    while true {
      while end > start, out[end - 1].isSpace { end -= 1 }
      guard end > start, "?!:.".unicodeScalars.contains(out[end - 1]),
        end - start == 1 || out[end - 2] != "\\"
      else { break }
      end -= 1
    }
    return start == 0 && end == out.count ? out : Array(out[start..<end])
  }

  /// `CaptureGroupCompiler.translateMeta2Regex`: a meta character at either edge.
  private static func translate(
    _ expression: [Unicode.Scalar], meta: Unicode.Scalar, into regex: [Unicode.Scalar],
    _ hasCapture: inout Bool
  ) -> [Unicode.Scalar] {
    var expression = expression
    if expression.isEmpty || expression == [meta] {
      hasCapture = true
      return regex
    }
    if expression.count >= 2, expression[0] == meta, expression[1] == " " {
      expression = regex + [" "] + expression[2...]
      hasCapture = true
    }
    if expression.first == meta {
      expression = regex + [" ", "?"] + expression.dropFirst()
      hasCapture = true
    }
    if expression.count >= 2, expression[expression.count - 1] == meta,
      expression[expression.count - 2] == " "
    {
      expression = expression.dropLast(2) + [" "] + regex
      hasCapture = true
    }
    if expression.last == meta {
      expression = expression.dropLast() + [" ", "?"] + regex
      hasCapture = true
    }
    return expression
  }

  /// ` * ` (or ` ?* `) inside the expression becomes ` (.*) `, left to right.
  private static func replaceInner(
    _ expression: [Unicode.Scalar], meta: Unicode.Scalar, with regex: [Unicode.Scalar],
    _ hasCapture: inout Bool
  ) -> [Unicode.Scalar] {
    guard expression.contains(meta) else { return expression }
    var out: [Unicode.Scalar] = []
    out.reserveCapacity(expression.count + 8)
    var index = 0
    let count = expression.count
    while index < count {
      if expression[index] == " " {
        if index + 2 < count, expression[index + 1] == meta, expression[index + 2] == " " {
          out.append(" ")
          out += regex
          out.append(" ")
          index += 3
          hasCapture = true
          continue
        }
        if index + 3 < count, expression[index + 1] == "?", expression[index + 2] == meta,
          expression[index + 3] == " "
        {
          out.append(" ")
          out += regex
          out.append(" ")
          index += 4
          hasCapture = true
          continue
        }
      }
      out.append(expression[index])
      index += 1
    }
    return out
  }

  /// The expression as pieces when it uses only literal text, ` ?`, `(.*)` and `(^\S+)`
  /// (`^` there is read as the one-word capture the skill format means, not as an anchor).
  static func pieces(_ expression: [Unicode.Scalar]) -> [Piece]? {
    var pieces: [Piece] = []
    var literal: [Unicode.Scalar] = []
    func flush() {
      if !literal.isEmpty { pieces.append(.literal(Array(string(literal).utf8))) }
      literal = []
    }
    func hasPrefix(_ prefix: [Unicode.Scalar], at index: Int) -> Bool {
      index + prefix.count <= expression.count
        && expression[index..<(index + prefix.count)].elementsEqual(prefix)
    }
    var index = 0
    while index < expression.count {
      let scalar = expression[index]
      if hasPrefix(anyText, at: index) {
        flush()
        pieces.append(.any)
        index += anyText.count
      } else if hasPrefix(oneWord, at: index) {
        flush()
        pieces.append(.word)
        index += oneWord.count
      } else if scalar == " ", index + 1 < expression.count, expression[index + 1] == "?" {
        flush()
        pieces.append(.optionalSpace)
        index += 2
      } else if scalar == "\\", index + 1 < expression.count,
        expression[index + 1] == "[" || expression[index + 1] == "]"
      {
        literal.append(expression[index + 1])
        index += 2
      } else if "\\^$.|?*+()[]{}".unicodeScalars.contains(scalar) {
        return nil
      } else {
        literal.append(scalar)
        index += 1
      }
    }
    flush()
    return pieces
  }

  /// `extractMeat` over the expression's space-separated tokens, keeping those longer than one
  /// character.
  static func meatTokens(_ expression: [Unicode.Scalar]) -> [String] {
    var keys: [String] = []
    var start = 0
    let count = expression.count
    while start < count {
      var end = start
      while end < count, expression[end] != " " { end += 1 }
      if end - start > 1 {
        let meat = meat(expression[start..<end])
        if meat.utf8.count > 1 && !keys.contains(meat) { keys.append(meat) }
      }
      start = end + 1
    }
    return keys
  }

  /// Letters, digits, `[`, `]` and `_` of a token; nothing for a regular-expression token.
  static func meat(_ token: ArraySlice<Unicode.Scalar>) -> String {
    var hasOpen = false
    var hasClose = false
    var previous: Unicode.Scalar = " "
    var beforePrevious: Unicode.Scalar = " "
    for scalar in token {
      // `.*` or `\h*`: a regular expression
      if scalar == "*" && (previous == "." || (previous == "h" && beforePrevious == "\\")) {
        return ""
      }
      if scalar == "(" { hasOpen = true }
      if scalar == ")" { hasClose = true }
      beforePrevious = previous
      previous = scalar
    }
    if hasOpen && hasClose { return "" }
    var ascii: [UInt8] = []
    ascii.reserveCapacity(token.count)
    var other: [Unicode.Scalar]?
    for scalar in token {
      if scalar.isASCII, other == nil {
        let value = UInt8(scalar.value)
        switch value {
        case 0x61...0x7A, 0x30...0x39, 0x5B, 0x5D, 0x5F: ascii.append(value)
        case 0x41...0x5A: ascii.append(value + 0x20)
        default: break
        }
      } else {
        if other == nil { other = ascii.map { Unicode.Scalar($0) } }
        if scalar.properties.isAlphabetic || scalar.properties.numericType != nil
          || scalar == "[" || scalar == "]" || scalar == "_"
        {
          other?.append(scalar)
        }
      }
    }
    if let other { return string(other).lowercased() }
    return String(decoding: ascii, as: UTF8.self)
  }

  static func meat(_ token: Substring) -> String {
    meat(ArraySlice(token.unicodeScalars))
  }

  // MARK: - Matching

  /// The longest query that is matched against patterns, in UTF-8 bytes; longer ones fall back.
  static let maximumQueryLength = 1000

  /// The captures when the pattern matches the whole query, else nil.
  func match(_ query: Query) -> [String]? {
    switch matcher {
    case .exact(let text):
      return text == query.text ? [] : nil
    case .pieces(let pieces):
      // A literal at either end must be the query's start or end: most patterns fail here,
      // before any backtracking.
      let bytes = query.bytes
      if case .literal(let first) = pieces.first,
        first.count > bytes.count || !bytes.starts(with: first)
      {
        return nil
      }
      if case .literal(let last) = pieces.last,
        last.count > bytes.count || !bytes[(bytes.count - last.count)...].elementsEqual(last)
      {
        return nil
      }
      var state = PieceMatch(pieces: pieces, query: bytes)
      guard state.match(0, 0) else { return nil }
      return state.captures.map { query.capture($0) }
    case .regex(let box):
      guard let regex = box.regex else { return nil }
      let range = NSRange(query.text.startIndex..., in: query.text)
      guard let found = regex.firstMatch(in: query.text, options: [], range: range) else {
        return nil
      }
      return (1..<max(1, found.numberOfRanges)).map { group in
        let range = found.range(at: group)
        guard range.location != NSNotFound, let text = Range(range, in: query.text) else {
          return ""
        }
        return String(query.text[text])
      }
    }
  }

  /// Backtracking over pieces, greedy like Java's; positions that failed are remembered, so a
  /// pattern costs at most pieces × length² steps.
  private struct PieceMatch {
    let pieces: [Piece]
    let query: [UInt8]
    var failed: [Bool]
    var captures: [Range<Int>] = []

    init(pieces: [Piece], query: [UInt8]) {
      self.pieces = pieces
      self.query = query
      failed = Array(repeating: false, count: (pieces.count + 1) * (query.count + 1))
    }

    mutating func match(_ piece: Int, _ position: Int) -> Bool {
      if piece == pieces.count { return position == query.count }
      let state = piece * (query.count + 1) + position
      if failed[state] { return false }
      var matched = false
      switch pieces[piece] {
      case .literal(let literal):
        if position + literal.count <= query.count,
          query[position..<(position + literal.count)].elementsEqual(literal)
        {
          matched = match(piece + 1, position + literal.count)
        }
      case .optionalSpace:
        matched =
          (position < query.count && query[position] == 0x20 && match(piece + 1, position + 1))
          || match(piece + 1, position)
      case .any, .word:
        // The longest capture first: to the end of the query for `*`, to the end of the word
        // (at least one byte) for a word placeholder.
        var end = query.count
        var shortest = 0
        if case .word = pieces[piece] {
          end = position
          while end < query.count, query[end] != 0x20, query[end] != 0x09 { end += 1 }
          shortest = 1
        }
        while end - position >= shortest {
          captures.append(position..<end)
          if match(piece + 1, end) {
            matched = true
            break
          }
          captures.removeLast()
          end -= 1
        }
      }
      if !matched { failed[state] = true }
      return matched
    }
  }

  /// A query ready for matching: normalized, in lower case, with its tokens for the key
  /// lookup; captures keep the case the user typed.
  struct Query {
    /// The normalized query in lower case: what patterns match.
    let text: String
    /// `text` as UTF-8.
    let bytes: [UInt8]
    /// The normalized query with its case, as UTF-8 (nil when lower-casing changed its length).
    let original: [UInt8]?
    /// The tokens that find intents: words, with `?!.,;:` split off, and each word's letters
    /// and digits alone (`what's` also finds `whats`).
    let tokens: Set<String>

    init(_ query: String) {
      let kept = SkillPattern.normalize(query, keepCase: true)
      let lower = kept.lowercased()
      text = lower
      bytes = Array(lower.utf8)
      let originalBytes = Array(kept.utf8)
      original = originalBytes.count == bytes.count ? originalBytes : nil
      var tokens = Set<String>()
      var spaced = ""
      for character in lower {
        if "?!.,;:".contains(character) { spaced.append(" ") }
        spaced.append(character)
      }
      for word in spaced.split(separator: " ") {
        tokens.insert(String(word))
        let meat = SkillPattern.meat(word)
        if !meat.isEmpty { tokens.insert(meat) }
      }
      self.tokens = tokens
    }

    var isTooLong: Bool { bytes.count > SkillPattern.maximumQueryLength }

    func capture(_ range: Range<Int>) -> String {
      String(decoding: (original ?? bytes)[range], as: UTF8.self)
    }
  }
}
