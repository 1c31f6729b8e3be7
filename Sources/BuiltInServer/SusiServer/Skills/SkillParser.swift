import SusiJSON

/// Reads skill files in the SUSI skill format as the real server's `SusiSkillFile` and
/// `SusiSkill` do (see DefaultSkills/README.md).
///
/// The parser never traps on input: a file that is not text is an error, and anything odd
/// inside a text file (an intent without an answer, a rule without `eol`, JSON that does not
/// parse) is skipped with a `SkillWarning`.
public enum SkillParser {
  /// Skill files larger than this are refused rather than read into memory. The largest file
  /// of the public collection (an AIML conversion) is 2.6 MB.
  public static let maximumFileSize = 8 << 20

  /// Parses the bytes of one skill file. `acceptCatchAll` keeps intents whose only utterance
  /// is a lone `*`; the real server allows them only in its own skills, never in a skill
  /// collection, where they would answer every question.
  public static func parse(_ bytes: [UInt8], acceptCatchAll: Bool = true) throws(SkillParseError)
    -> SkillFile
  {
    try parse(bytes, acceptCatchAll: acceptCatchAll, each: nil)
  }

  /// Parses the bytes of one skill file; with `each`, every intent is handed to it as soon as
  /// it is read instead of being kept in the file (whose `intents` are then empty), so that a
  /// large file is never held whole.
  static func parse(
    _ bytes: [UInt8], acceptCatchAll: Bool, each: ((SkillIntent) -> Void)?, firstLine: Int = 0
  ) throws(SkillParseError) -> SkillFile {
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
    var parser = Parser(
      lines: physicalLines(text, firstLine: firstLine), acceptCatchAll: acceptCatchAll)
    parser.each = each
    parser.run()
    return SkillFile(
      headers: parser.headers, intents: parser.intents, warnings: parser.warnings,
      exampleLines: parser.exampleLines, focus: parser.focus)
  }

  /// Parses skill text (for tests and inline skills).
  public static func parse(_ text: String, acceptCatchAll: Bool = true) throws(SkillParseError)
    -> SkillFile
  {
    try parse(Array(text.utf8), acceptCatchAll: acceptCatchAll)
  }

  /// A line with its 0-based number.
  struct Line {
    var number: Int
    var text: String
  }

  /// Splits at LF, CRLF or a lone CR; trims each line's end (control characters and spaces)
  /// and turns tabs into four spaces.
  static func physicalLines(_ text: String, firstLine: Int = 0) -> [Line] {
    var lines: [Line] = []
    let utf8 = Array(text.utf8)
    var start = 0
    var index = 0
    func add(_ end: Int) {
      var last = end
      while last > start, utf8[last - 1] <= 0x20 { last -= 1 }
      let slice = utf8[start..<last]
      var line = String(decoding: slice, as: UTF8.self)
      if slice.contains(0x09) {
        line = line.split(separator: "\t", omittingEmptySubsequences: false).joined(
          separator: "    ")
      }
      lines.append(Line(number: firstLine + lines.count, text: line))
    }
    while index < utf8.count {
      let byte = utf8[index]
      if byte == 0x0A || byte == 0x0D {
        add(index)
        if byte == 0x0D, index + 1 < utf8.count, utf8[index + 1] == 0x0A { index += 1 }
        start = index + 1
      }
      index += 1
    }
    if start < utf8.count { add(utf8.count) }
    return lines
  }

  /// The byte offset where each line starts, splitting as `physicalLines` does.
  static func lineStarts(_ bytes: [UInt8]) -> [Int] {
    var starts = [0]
    var index = 0
    while index < bytes.count {
      let byte = bytes[index]
      if byte == 0x0A || byte == 0x0D {
        if byte == 0x0D, index + 1 < bytes.count, bytes[index + 1] == 0x0A { index += 1 }
        starts.append(index + 1)
      }
      index += 1
    }
    return starts
  }

  /// The bang heads the reader knows; a line whose head is none of these starts a block of
  /// lines collected up to `eol`.
  static let knownHeads: Set<String> = [
    "example", "expect", "label", "implication", "first", "rest", "plan", "console", "javascript",
  ]

  /// Splits a bang line `!head param:tail` as the real server does, at the last colon; when
  /// that gives no known head but the first colon does, at the first (the real server loses
  /// such lines, e.g. a console answer `Temperature: $temp$`).
  static func splitBang(_ line: String) -> (head: String, param: String, tail: String)? {
    let body = line.dropFirst()
    func split(at colon: Substring.Index) -> (String, String, String) {
      var head = body[..<colon].trimmed.lowercased()
      var param = ""
      if let space = head.firstIndex(of: " ") {
        param = head[head.index(after: space)...].trimmed
        head = head[..<space].trimmed
      }
      return (head, param, body[body.index(after: colon)...].trimmed)
    }
    guard let last = body.lastIndex(of: ":") else { return nil }
    let byLast = split(at: last)
    if knownHeads.contains(byLast.0) { return byLast }
    if let first = body.firstIndex(of: ":"), first != last {
      let byFirst = split(at: first)
      if knownHeads.contains(byFirst.0) { return byFirst }
    }
    return byLast
  }

  /// The reader: blocks of lines separated by blank lines, `::` lines on their own, `#` lines
  /// at column 0 invisible.
  private struct Parser {
    let lines: [Line]
    let acceptCatchAll: Bool
    var index = 0
    var headers: [SkillFile.Header] = []
    var intents: [SkillIntent] = []
    var warnings: [SkillWarning] = []
    var exampleLines: [(line: Int, text: String)] = []
    var focus: [String] = []
    var isPrior = false
    /// When set, receives each intent instead of `intents`.
    var each: ((SkillIntent) -> Void)?

    init(lines: [Line], acceptCatchAll: Bool) {
      self.lines = lines
      self.acceptCatchAll = acceptCatchAll
    }

    mutating func warn(_ line: Int, _ message: String) {
      warnings.append(SkillWarning(line: line + 1, message: message))
    }

    mutating func run() {
      var block: [Line] = []
      while index < lines.count {
        let line = lines[index]
        index += 1
        if line.text.isEmpty {
          finish(&block)
        } else if line.text.hasPrefix("::") {
          finish(&block)
          readHeader(line)
        } else if line.text.hasPrefix("#") {
          continue
        } else {
          block.append(line)
        }
      }
      finish(&block)
    }

    mutating func finish(_ block: inout [Line]) {
      guard !block.isEmpty else { return }
      let joined = Parser.join(block)
      block = []
      guard joined.count > 1 else {
        warn(joined[0].number, "a line alone in its block is no intent (no answer line); ignored")
        return
      }
      readIntent(joined)
    }

    /// Glues lines marked with a leading or trailing `\` to the line before, with a space.
    static func join(_ block: [Line]) -> [Line] {
      var out: [Line] = []
      for line in block {
        if line.text.hasPrefix("\\") {
          let rest = String(line.text.dropFirst())
          if let last = out.indices.last {
            out[last].text += " " + rest.trimmed
          } else {
            out.append(Line(number: line.number, text: rest))
          }
        } else if let last = out.indices.last, out[last].text.hasSuffix("\\") {
          out[last].text = String(out[last].text.dropLast()) + " " + line.text.trimmed
        } else {
          out.append(line)
        }
      }
      return out
    }

    mutating func readHeader(_ line: Line) {
      let body = line.text.dropFirst(2)
      let key = String(body.prefix { !$0.isWhitespace })
      let value = String(body.dropFirst(key.count)).trimmed
      guard !key.isEmpty else {
        warn(line.number, "header line without a name is ignored")
        return
      }
      switch key.lowercased() {
      case "prior": isPrior = true
      case "minor": isPrior = false
      case "on":
        focus = value.split(separator: ",").map { $0.trimmed.lowercased() }.filter { !$0.isEmpty }
      default: break
      }
      headers.append(SkillFile.Header(key: key, value: value.isEmpty ? nil : value))
    }

    /// One intent block: the utterance line, then bang lines, `?` lines and answer lines.
    mutating func readIntent(_ block: [Line]) {
      let head = block[0]
      var patterns: [SkillPattern] = []
      for part in head.text.split(separator: "|") {
        let text = part.trimmed
        guard !text.isEmpty else { continue }
        let pattern = SkillPattern(text)
        if pattern.isCatchAll && !acceptCatchAll {
          warn(
            head.number,
            "the catch-all utterance '\(text)' is dropped: in a skill collection it would answer every question"
          )
          continue
        }
        patterns.append(pattern)
      }
      let examples = block.dropFirst().compactMap { line -> (Int, String)? in
        let text = line.text.trimmed
        guard text.hasPrefix("!"), let bang = SkillParser.splitBang(text), bang.head == "example"
        else { return nil }
        return bang.tail.isEmpty ? nil : (line.number, bang.tail)
      }
      exampleLines += examples.map { (line: $0.0, text: $0.1) }
      guard !patterns.isEmpty else {
        if !head.text.split(separator: "|").contains(where: { !$0.trimmed.isEmpty }) {
          warn(head.number, "utterance line has no utterance; the intent is ignored")
        }
        return
      }
      var drafts = [
        SkillIntent(
          patterns: patterns, actions: [], rule: nil, conditions: [], plans: [], flow: [],
          line: head.number, examples: [], isPrior: isPrior)
      ]
      var bangType = ""
      var bangTail = ""
      var bangLine = 0
      var bag: [String] = []
      var position = 1
      var closed = false
      while position < block.count {
        let numbered = block[position]
        position += 1
        let line = numbered.text.trimmed
        if line.hasPrefix("!"), let bang = SkillParser.splitBang(line) {
          switch bang.head {
          case "example":
            if bang.tail.isEmpty {
              warn(numbered.number, "empty !example: line is ignored")
            } else {
              for i in drafts.indices { drafts[i].examples.append(bang.tail) }
            }
          case "expect", "label", "implication": break
          case "first": for i in drafts.indices { drafts[i].flow.append(.first) }
          case "rest": for i in drafts.indices { drafts[i].flow.append(.rest) }
          case "plan":
            if bang.param.isEmpty || bang.tail.isEmpty {
              warn(numbered.number, "!plan needs '<delay>:<answer>'; ignored")
            } else {
              let plan = PlannedAnswer(delay: bang.param, template: bang.tail)
              for i in drafts.indices { drafts[i].plans.append(plan) }
            }
          default:
            bangType = bang.head
            bangTail = bang.tail
            bangLine = numbered.number
            bag = []
          }
          continue
        }
        if !bangType.isEmpty {
          if line.lowercased() != "eol" {
            bag.append(line)
            continue
          }
          if bangType == "console" || bangType == "javascript" {
            closeRule(bangType, tail: bangTail, line: bangLine, body: bag, &drafts)
            closed = true
            if position < block.count {
              warn(
                block[position].number, "lines after a rule's 'eol' in the same block are ignored")
            }
            break
          }
          warn(bangLine, "unknown bang line '!\(bangType)' is ignored")
          bangType = ""
          continue
        }
        if line.hasPrefix("?"), let thenColon = line.firstIndex(of: ":") {
          readCondition(line, thenColon: thenColon, number: numbered.number, &drafts)
          continue
        }
        let answer = SkillIntent.Action.answer(
          SkillParser.alternatives(line), line: numbered.number)
        for i in drafts.indices { drafts[i].actions.append(answer) }
      }
      if !closed && (bangType == "console" || bangType == "javascript") {
        // The real server ends the rule at the blank line and loses it; read on to its `eol`.
        if let (body, end) = bodyAcrossBlankLines() {
          warn(
            bangLine,
            "the rule's body runs past a blank line; it is read on to its 'eol' (the real server cuts it)"
          )
          closeRule(bangType, tail: bangTail, line: bangLine, body: bag + body, &drafts)
          index = end
        } else {
          warn(bangLine, "!\(bangType): rule has no closing 'eol' line; it is ignored")
        }
      } else if !closed && !bangType.isEmpty {
        warn(bangLine, "unknown bang line '!\(bangType)' is ignored")
      }
      for draft in drafts {
        guard !draft.actions.isEmpty || draft.rule != nil else {
          warn(draft.line, "intent has no answer line and is ignored")
          continue
        }
        if let each { each(draft) } else { intents.append(draft) }
      }
    }

    /// The lines from here up to an `eol` line (not included) and the index after it, or nil
    /// when a header or the end of the file comes first.
    func bodyAcrossBlankLines() -> ([String], Int)? {
      var body: [String] = []
      var probe = index
      while probe < lines.count {
        let text = lines[probe].text
        if text.hasPrefix("::") { return nil }
        if text.trimmed.lowercased() == "eol" { return (body, probe + 1) }
        if !text.isEmpty && !text.hasPrefix("#") { body.append(text.trimmed) }
        probe += 1
      }
      return nil
    }

    mutating func closeRule(
      _ type: String, tail: String, line: Int, body: [String], _ drafts: inout [SkillIntent]
    ) {
      if type == "javascript" {
        for i in drafts.indices {
          drafts[i].rule = .javascript(body.joined(separator: "\n"), line: line)
          if !tail.isEmpty {
            drafts[i].actions.append(.answer(SkillParser.alternatives(tail), line: line))
          }
        }
        return
      }
      let object: JSONObject
      do {
        object = try SkillJSON.object(body.joined(separator: "\n"))
      } catch {
        warn(line, "!console: rule JSON does not parse (\(error)); the intent is ignored")
        drafts = []
        return
      }
      var definition = object
      if let data = definition["data"], data.array == nil {
        warn(line, "!console: \"data\" must be an array of rows; it is ignored")
        definition["data"] = nil
      }
      var actions: [SkillIntent.Action] = []
      if !tail.isEmpty { actions.append(.answer(SkillParser.alternatives(tail), line: line)) }
      for (position, action) in (definition["actions"]?.array ?? []).enumerated() {
        guard let action = action.object, let type = action["type"]?.string,
          ActionKind(rawValue: type) != nil
        else {
          warn(line, "!console: action \(position) has no known \"type\"; it is ignored")
          continue
        }
        actions.append(.other(action))
      }
      for i in drafts.indices {
        drafts[i].rule = .console(ConsoleRule(definition: definition, line: line))
        drafts[i].actions += actions
      }
    }

    /// `?cond:then` adds the answer under the condition; `?cond:then:else` also makes a copy of
    /// every intent so far that answers `else` when the condition does not hold.
    mutating func readCondition(
      _ line: String, thenColon: String.Index, number: Int, _ drafts: inout [SkillIntent]
    ) {
      let condition = line[line.index(after: line.startIndex)..<thenColon].trimmed
      let rest = line[line.index(after: thenColon)...]
      guard let elseColon = rest.firstIndex(of: ":") else {
        let then = rest.trimmed
        guard !then.isEmpty else { return }
        for i in drafts.indices {
          drafts[i].actions.append(.answer(SkillParser.alternatives(then), line: number))
          drafts[i].conditions.append(Condition(expression: condition, negated: false))
        }
        return
      }
      var clones = drafts
      let then = rest[..<elseColon].trimmed
      if !then.isEmpty {
        for i in drafts.indices {
          drafts[i].actions.append(.answer(SkillParser.alternatives(then), line: number))
          drafts[i].conditions.append(Condition(expression: condition, negated: false))
        }
      }
      let otherwise = rest[rest.index(after: elseColon)...].trimmed
      if !otherwise.isEmpty {
        for i in clones.indices {
          clones[i].actions.append(.answer(SkillParser.alternatives(otherwise), line: number))
          clones[i].conditions.append(Condition(expression: condition, negated: true))
        }
        drafts += clones
      }
    }
  }

  static func alternatives(_ text: String) -> [String] {
    let parts = text.split(separator: "|").map { $0.trimmed }.filter { !$0.isEmpty }
    return parts.isEmpty ? [text] : parts
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
    let text = Substring(self)
    let scalars = text.unicodeScalars
    guard let first = scalars.firstIndex(where: { !$0.isSpace }),
      let last = scalars.lastIndex(where: { !$0.isSpace })
    else { return "" }
    return String(text[first...last])
  }

  var trimmedLeft: Substring {
    let scalars = Substring(self).unicodeScalars
    guard let first = scalars.firstIndex(where: { !$0.isSpace }) else { return "" }
    return Substring(scalars[first...])
  }
}
