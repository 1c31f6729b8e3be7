import Foundation
import SusiJSON

/// Reads skill files in the SUSI skill format (see DefaultSkills/README.md for the subset).
///
/// The parser never traps on input: a file that is not text is an error, and anything odd
/// inside a text file (an intent without an answer, a console rule without `eol`, JSON that does
/// not parse, an unknown bang line) is skipped with a `SkillWarning`.
public enum SkillParser {
  /// Skill files larger than this are refused rather than read into memory.
  public static let maximumFileSize = 1 << 20

  /// Parses the bytes of one skill file.
  public static func parse(_ bytes: [UInt8]) throws(SkillParseError) -> SkillFile {
    guard bytes.count <= maximumFileSize else {
      throw SkillParseError(message: "file is larger than \(maximumFileSize) bytes")
    }
    guard !bytes.contains(0) else {
      throw SkillParseError(message: "file contains NUL bytes; it is not a text file")
    }
    // Decoding with repair is fast; comparing the bytes back tells whether anything was
    // repaired, i.e. whether the file was valid UTF-8.
    var text = String(decoding: bytes, as: UTF8.self)
    guard text.utf8.elementsEqual(bytes) else {
      throw SkillParseError(message: "file is not valid UTF-8 text")
    }
    if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
    var parser = Parser(lines: logicalLines(text))
    parser.run()
    return SkillFile(headers: parser.headers, intents: parser.intents, warnings: parser.warnings)
  }

  /// Parses skill text (for tests and inline skills).
  public static func parse(_ text: String) throws(SkillParseError) -> SkillFile {
    try parse(Array(text.utf8))
  }

  /// A line after CRLF/tab clean-up and `\` joining, with its 0-based line number.
  struct Line {
    var number: Int
    var text: String
  }

  /// Splits text into lines (LF, CRLF or CR), turns tabs into four spaces and joins lines
  /// marked with a trailing or leading backslash.
  static func logicalLines(_ text: String) -> [Line] {
    var lines: [Line] = []
    var joinNext = false
    for (number, raw) in physicalLines(text).enumerated() {
      var text =
        raw.utf8.contains(UInt8(ascii: "\t"))
        ? raw.replacingOccurrences(of: "\t", with: "    ") : raw
      let leadingJoin = text.trimmedLeft.hasPrefix("\\") && !lines.isEmpty
      if leadingJoin { text = String(text.trimmedLeft.dropFirst()) }
      let trailingJoin = text.hasSuffix("\\")
      if trailingJoin { text.removeLast() }
      if joinNext || leadingJoin, let last = lines.indices.last {
        lines[last].text += text
      } else {
        lines.append(Line(number: number, text: text))
      }
      joinNext = trailingJoin
    }
    return lines
  }

  /// Splits at LF, CRLF or a lone CR, working on the UTF-8 bytes.
  static func physicalLines(_ text: String) -> [String] {
    var lines: [String] = []
    let utf8 = Array(text.utf8)
    var start = 0
    var index = 0
    while index < utf8.count {
      let byte = utf8[index]
      if byte == 0x0A || byte == 0x0D {
        lines.append(String(decoding: utf8[start..<index], as: UTF8.self))
        if byte == 0x0D, index + 1 < utf8.count, utf8[index + 1] == 0x0A { index += 1 }
        start = index + 1
      }
      index += 1
    }
    lines.append(String(decoding: utf8[start..<utf8.count], as: UTF8.self))
    return lines
  }

  /// The block state machine over logical lines.
  private struct Parser {
    let lines: [Line]
    var index = 0
    var headers: [SkillFile.Header] = []
    var intents: [SkillIntent] = []
    var warnings: [SkillWarning] = []
    var isPrior = false
    var current: IntentDraft?

    init(lines: [Line]) { self.lines = lines }

    struct IntentDraft {
      var line: Int
      var patterns: [SkillPattern]
      var answer: SkillIntent.Answer?
      var answerLine = 0
      var examples: [String] = []
      var plans: [PlannedAnswer] = []
      var isBroken = false
    }

    mutating func warn(_ line: Int, _ message: String) {
      warnings.append(SkillWarning(line: line + 1, message: message))
    }

    mutating func run() {
      while index < lines.count {
        let line = lines[index]
        let text = line.text.trimmed
        index += 1
        if text.hasPrefix("::") {
          finishIntent()
          readHeader(text, line: line.number)
        } else if text.hasPrefix("#") {
          continue
        } else if text.isEmpty {
          finishIntent()
        } else if current == nil {
          startIntent(text, line: line.number)
        } else if text.hasPrefix("!") {
          readBang(text, line: line.number)
        } else if current?.answer == nil {
          let answer = SkillIntent.Answer.text(Parser.alternatives(text))
          current?.answer = answer
          current?.answerLine = line.number
        } else {
          warn(line.number, "no blank line before this line; it starts a new intent")
          finishIntent()
          startIntent(text, line: line.number)
        }
      }
      finishIntent()
    }

    mutating func readHeader(_ text: String, line: Int) {
      let body = text.dropFirst(2)
      let key = String(body.prefix { !$0.isWhitespace })
      let value = String(body.dropFirst(key.count)).trimmed
      guard !key.isEmpty else {
        warn(line, "header line without a name is ignored")
        return
      }
      switch key.lowercased() {
      case "prior": isPrior = true
      case "minor": isPrior = false
      default: break
      }
      headers.append(SkillFile.Header(key: key, value: value.isEmpty ? nil : value))
    }

    mutating func startIntent(_ text: String, line: Int) {
      let patterns = text.split(separator: "|").map { SkillPattern(String($0).trimmed) }
        .filter { !$0.tokens.isEmpty }
      current = IntentDraft(line: line, patterns: patterns)
      if patterns.isEmpty {
        warn(line, "pattern line has no words")
        current?.isBroken = true
      }
    }

    mutating func finishIntent() {
      guard let draft = current else { return }
      current = nil
      guard !draft.isBroken else { return }
      guard let answer = draft.answer else {
        warn(draft.line, "intent has no answer line and is ignored")
        return
      }
      intents.append(
        SkillIntent(
          patterns: draft.patterns, answer: answer, line: draft.line, answerLine: draft.answerLine,
          examples: draft.examples, plans: draft.plans, isPrior: isPrior))
    }

    mutating func readBang(_ text: String, line: Int) {
      let body = text.dropFirst()
      let name = body.prefix { $0.isLetter }.lowercased()
      let rest = body.dropFirst(name.count)
      switch name {
      case "example":
        let example = rest.hasPrefix(":") ? String(rest.dropFirst()).trimmed : ""
        if example.isEmpty {
          warn(line, "empty !example: line is ignored")
        } else {
          current?.examples.append(example)
        }
      case "expect", "label", "implication", "first", "rest", "description", "term":
        break
      case "plan":
        readPlan(String(rest), line: line)
      case "console":
        readConsole(
          template: rest.hasPrefix(":") ? String(rest.dropFirst()).trimmed : "", line: line)
      case "javascript":
        _ = collectUntilEOL(startLine: line, what: "!javascript: rule")
        warn(line, "!javascript: rules are not supported here; the intent is ignored")
        current?.isBroken = true
      default:
        warn(line, "unknown bang line '!\(name)' is ignored")
      }
    }

    mutating func readPlan(_ rest: String, line: Int) {
      guard let colon = rest.firstIndex(of: ":") else {
        warn(line, "!plan needs '<delay>:<answer>'; ignored")
        return
      }
      let delay = rest[..<colon].trimmed
      let template = rest[rest.index(after: colon)...].trimmed
      guard !delay.isEmpty, !template.isEmpty else {
        warn(line, "!plan needs '<delay>:<answer>'; ignored")
        return
      }
      current?.plans.append(PlannedAnswer(delay: delay, template: template))
    }

    /// The lines after a `!console:`/`!javascript:` line up to its `eol`. Without an `eol`, the
    /// lines up to the next blank line are taken (so later intents survive) and nil is returned.
    mutating func collectUntilEOL(startLine: Int, what: String) -> [String]? {
      var body: [String] = []
      var probe = index
      while probe < lines.count {
        if lines[probe].text.trimmed.lowercased() == "eol" {
          index = probe + 1
          return body
        }
        body.append(lines[probe].text)
        probe += 1
      }
      warn(startLine, "\(what) has no closing 'eol' line; the intent is ignored")
      while index < lines.count, !lines[index].text.trimmed.isEmpty { index += 1 }
      return nil
    }

    mutating func readConsole(template: String, line: Int) {
      guard let body = collectUntilEOL(startLine: line, what: "!console: rule") else {
        current?.isBroken = true
        return
      }
      let json: JSON
      do {
        json = try JSONParser.parse(body.joined(separator: "\n"))
      } catch {
        warn(line, "!console: rule JSON does not parse (\(error)); the intent is ignored")
        current?.isBroken = true
        return
      }
      guard let object = json.object else {
        warn(line, "!console: rule must be a JSON object; the intent is ignored")
        current?.isBroken = true
        return
      }
      var actions: [JSONObject] = []
      for (position, action) in (object["actions"]?.array ?? []).enumerated() {
        guard let action = action.object, action["type"]?.string != nil else {
          warn(line, "!console: action \(position) has no \"type\"; it is ignored")
          continue
        }
        actions.append(action)
      }
      var rows: [JSON]?
      if let data = object["data"] {
        if let array = data.array {
          rows = array
        } else {
          warn(line, "!console: \"data\" must be an array of rows; it is ignored")
        }
      }
      let rule = ConsoleRule(
        template: template, rows: rows, actions: actions, url: object["url"]?.string)
      if current?.answer != nil {
        warn(line, "intent already has an answer; the !console: rule replaces it")
      }
      current?.answer = .console(rule)
      current?.answerLine = line
    }

    static func alternatives(_ text: String) -> [String] {
      let parts = text.split(separator: "|").map { String($0).trimmed }.filter { !$0.isEmpty }
      return parts.isEmpty ? [text] : parts
    }
  }
}

extension Unicode.Scalar {
  /// Whitespace, with a fast path for ASCII.
  var isSpace: Bool {
    switch value {
    case 0x20, 0x09...0x0D: true
    case 0..<0x80: false
    default: properties.isWhitespace
    }
  }
}

extension StringProtocol {
  /// Without leading and trailing whitespace.
  var trimmed: String {
    let scalars = unicodeScalars
    guard let first = scalars.firstIndex(where: { !$0.isSpace }),
      let last = scalars.lastIndex(where: { !$0.isSpace })
    else { return "" }
    var out = String.UnicodeScalarView()
    out.append(contentsOf: scalars[first...last])
    return String(out)
  }

  var trimmedLeft: Substring {
    let scalars = Substring(self).unicodeScalars
    guard let first = scalars.firstIndex(where: { !$0.isSpace }) else { return "" }
    return Substring(scalars[first...])
  }
}
