import Foundation
import Glibc
import SusiFiles
import Synchronization

/// The skill files under a data directory's `models/` folder as found on disk, each with the
/// size and times `stat` gave before it was read.
struct SkillTree {
  struct File {
    var model: String
    var group: String
    var language: String
    /// The file name without `.txt`.
    var tag: String
    var url: URL
    /// `models/<model>/<group>/<language>/<name>.txt`.
    var relative: String
    var size: Int64
    /// Modification time in nanoseconds since 1970.
    var modifiedNanoseconds: Int64
    var modified: Date
    var accessed: Date?
  }

  var dataDirectory: URL
  var files: [File]
  var groupsByModel: [String: [String]]

  static func scan(_ dataDirectory: URL) -> SkillTree {
    // Paths as strings: `URL.appendingPathComponent` costs more than all the rest of a scan.
    let models = dataDirectory.appendingPathComponent("models").path
    var files: [File] = []
    var groupsByModel: [String: [String]] = [:]
    for model in SkillLibrary.subdirectories(atPath: models) {
      let modelPath = models + "/" + model
      let groups = SkillLibrary.subdirectories(atPath: modelPath)
      groupsByModel[model] = groups
      for group in groups {
        let groupPath = modelPath + "/" + group
        for language in SkillLibrary.subdirectories(atPath: groupPath) {
          let languagePath = groupPath + "/" + language
          for name in SkillLibrary.files(atPath: languagePath) where name.hasSuffix(".txt") {
            let path = languagePath + "/" + name
            let url = URL(fileURLWithPath: path, isDirectory: false)
            var info = stat()
            let found = stat(path, &info) == 0
            func date(_ time: timespec) -> Date {
              Date(
                timeIntervalSince1970: TimeInterval(time.tv_sec) + TimeInterval(time.tv_nsec) / 1e9
              )
            }
            files.append(
              File(
                model: model, group: group, language: language, tag: String(name.dropLast(4)),
                url: url, relative: "models/\(model)/\(group)/\(language)/\(name)",
                size: found ? Int64(info.st_size) : -1,
                modifiedNanoseconds: found
                  ? Int64(info.st_mtim.tv_sec) &* 1_000_000_000 &+ Int64(info.st_mtim.tv_nsec)
                  : -1,
                modified: found ? date(info.st_mtim) : Date(timeIntervalSince1970: 0),
                accessed: found ? date(info.st_atim) : nil))
          }
        }
      }
    }
    return SkillTree(dataDirectory: dataDirectory, files: files, groupsByModel: groupsByModel)
  }
}

/// What matching needs of a skill file without the file: its focus names and, per intent, the
/// utterances and the rank; held in memory, or read from the skill index when first asked.
struct SkillOutline: Sendable {
  struct Intent: Sendable {
    /// The utterances as written.
    var texts: [String]
    /// The utterances compiled, when the file was parsed; from the index they are compiled
    /// when a query first finds the intent.
    var compiled: [SkillPattern]?
    /// The keys that find the intent; nil from the index, which keeps its key tables whole.
    var keys: SkillMind.Keys?
    var rank: Int64
    /// From the index: the 0-based line of the intent's utterance line and its byte offset in
    /// the file, where the intent alone is read again when it is first needed.
    var line = 0
    var offset = 0
  }

  enum Storage: Sendable {
    case memory([Intent])
    /// Intent lines of the index, from the first on.
    case index(SkillIndex.Lines, first: Int)
  }

  var focus: [String]
  let count: Int
  private let storage: Storage

  init(_ file: SkillFile, keepCompiled: Bool = true) {
    focus = file.focus
    let intents = file.intents.map {
      Intent(
        texts: $0.patterns.map(\.text), compiled: keepCompiled ? $0.patterns : nil,
        keys: SkillMind.keys($0.patterns), rank: SkillMind.rank($0))
    }
    count = intents.count
    storage = .memory(intents)
  }

  init(focus: [String], intents: [Intent]) {
    self.focus = focus
    count = intents.count
    storage = .memory(intents)
  }

  init(focus: [String], lines: SkillIndex.Lines, first: Int, count: Int) {
    self.focus = focus
    self.count = count
    storage = .index(lines, first: first)
  }

  /// The intent at `index` (below `count`); one whose index line does not read back has no
  /// utterances, so it never answers.
  func intent(_ index: Int) -> Intent {
    switch storage {
    case .memory(let intents): return intents[index]
    case .index(let lines, let first):
      return lines.intent(first + index) ?? Intent(texts: [], compiled: [], keys: nil, rank: 0)
    }
  }

  /// Whether `file` has exactly these focus names and utterances, intent by intent.
  func describes(_ file: SkillFile) -> Bool {
    file.focus == focus && file.intents.count == count
      && file.intents.indices.allSatisfy {
        file.intents[$0].patterns.map(\.text) == intent($0).texts
      }
  }
}

/// Where a skill's parsed file comes from: given at load, or read and parsed on first use.
final class SkillSource: Sendable {
  private let url: URL?
  private let outline: SkillOutline?
  private let parsed: Mutex<SkillFile?>
  /// Intents read alone (by number), before or instead of the whole file; nil when one does
  /// not read back as the index recorded it.
  private let single = Mutex<[Int: SkillIntent?]>([:])

  init(file: SkillFile) {
    url = nil
    outline = nil
    parsed = Mutex(file)
  }

  /// A file read when first needed; when it no longer has the utterances of `outline` (it
  /// changed since the index was written), it reads as a skill without intents.
  init(url: URL, outline: SkillOutline) {
    self.url = url
    self.outline = outline
    parsed = Mutex(nil)
  }

  var file: SkillFile {
    parsed.withLock { parsed in
      if let parsed { return parsed }
      var file = SkillFile(headers: [], intents: [], warnings: [], exampleLines: [], focus: [])
      if let url, let outline,
        let bytes = try? AtomicFile.read(url, limit: SkillParser.maximumFileSize),
        let read = try? SkillParser.parse(bytes, acceptCatchAll: false),
        outline.describes(read)
      {
        file = read
      }
      parsed = file
      return file
    }
  }

  /// Intent `number`: from the whole file when it was parsed, else read alone from the file,
  /// from its utterance line to the next intent's (so that an answer from a large file does not
  /// parse all of it). nil when the file no longer has it as the index recorded it.
  func intent(_ number: Int) -> SkillIntent? {
    if let whole = parsed.withLock({ $0 }) {
      return whole.intents.indices.contains(number) ? whole.intents[number] : nil
    }
    guard let url, let outline, number >= 0, number < outline.count else { return nil }
    if let known = single.withLock({ $0[number] }) { return known }
    let wanted = outline.intent(number)
    var found: SkillIntent?
    // The intents of one block share its utterance line: this one is the n-th of them.
    var ordinal = 0
    var earlier = number - 1
    while earlier >= 0, outline.intent(earlier).line == wanted.line {
      ordinal += 1
      earlier -= 1
    }
    var end: Int?
    var later = number + 1
    while later < outline.count {
      let next = outline.intent(later)
      if next.line != wanted.line {
        end = next.offset
        break
      }
      later += 1
    }
    if let bytes = Self.read(url.path, from: wanted.offset, to: end) {
      var intents: [SkillIntent] = []
      _ = try? SkillParser.parse(
        bytes, acceptCatchAll: false,
        each: { if $0.line == wanted.line { intents.append($0) } }, firstLine: wanted.line)
      if intents.indices.contains(ordinal), intents[ordinal].patterns.map(\.text) == wanted.texts {
        found = intents[ordinal]
      }
    }
    single.withLock { $0[number] = found }
    return found
  }

  /// The bytes of the regular file at `path` from `start` up to `end` (or its end), read
  /// without reading the rest; nil when it cannot be read, is no regular file, or is shorter.
  static func read(_ path: String, from start: Int, to end: Int?) -> [UInt8]? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
    let size = Int(info.st_size)
    let stop = min(end ?? size, size)
    guard size <= SkillParser.maximumFileSize, start >= 0, start < stop else { return nil }
    var bytes = [UInt8](repeating: 0, count: stop - start)
    var done = 0
    while done < bytes.count {
      let count = bytes.withUnsafeMutableBytes { buffer in
        pread(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(start + done))
      }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return nil }
      done += count
    }
    return bytes
  }
}

/// The skill index: a private file in the server's state directory holding, for a data
/// directory, the outline of every skill, the key tables of the minds and the load warnings,
/// keyed by every skill file's path, size and modification time and by the running executable.
/// A start whose key matches builds the library from it without parsing a file, and without
/// reading an intent or a key table either: it notes where their lines begin, and a line is
/// read when a query first needs it. A key that differs in any way, or an index that does not
/// read back, is ignored and rewritten.
///
/// Format (UTF-8 text, one record a line, fields separated by tabs, `\`, tab, LF and CR
/// escaped): the key lines, then per skill `s <file position>`, its `f <focus name>` lines and
/// one `i <rank> <line> <byte offset> <utterance>…` line per intent; `w <warning>` lines; per mind `m <kind>
/// <name>` (`c` chat, `f` focus, `p` persona), `e <skill number>…` (its skills, numbered as the
/// `s` lines), `a <entry>…` (entries tried for every query) and `k <key> <entry>…` lines sorted
/// by key (an entry is an intent numbered in the order of the mind's skills); then `end`.
enum SkillIndex {
  static let magic = "susi skill index 2"
  static let maximumSize = 256 << 20

  /// The index's bytes and where its intent lines begin: an intent is read when first asked.
  final class Lines: Sendable {
    let bytes: [UInt8]
    let intentStarts: [Int32]

    init(bytes: [UInt8], intentStarts: [Int32]) {
      self.bytes = bytes
      self.intentStarts = intentStarts
    }

    /// The tab-separated fields of the line starting at `start`, after its kind.
    func fields(at start: Int) -> [ArraySlice<UInt8>] {
      var end = start
      while end < bytes.count, bytes[end] != 0x0A { end += 1 }
      return Array(
        bytes[start..<end].split(separator: 0x09, omittingEmptySubsequences: false).dropFirst())
    }

    /// Intent `number` (counted over all skills), or nil when its line does not read back.
    func intent(_ number: Int) -> SkillOutline.Intent? {
      guard intentStarts.indices.contains(number) else { return nil }
      let fields = fields(at: Int(intentStarts[number]))
      guard fields.count >= 3,
        let rank = Int64(String(decoding: fields[0], as: UTF8.self)),
        let line = Int(String(decoding: fields[1], as: UTF8.self)), line >= 0,
        let offset = Int(String(decoding: fields[2], as: UTF8.self)), offset >= 0
      else { return nil }
      var texts: [String] = []
      for field in fields.dropFirst(3) {
        guard let text = SkillIndex.unescape(field) else { return nil }
        texts.append(text)
      }
      return SkillOutline.Intent(
        texts: texts, compiled: nil, keys: nil, rank: rank, line: line, offset: offset)
    }
  }

  /// A mind's key table in the index: its `k` lines, sorted by key, searched by halving.
  struct KeyLines: Sendable {
    let lines: Lines
    let starts: [Int32]
    /// How many entries the mind has: larger numbers in a line are ignored.
    let entryCount: Int

    /// Adds the entries the key `token` finds.
    func entries(for token: String, into found: inout Set<Int32>) {
      let wanted = Array(token.utf8)
      let bytes = lines.bytes
      var low = 0
      var high = starts.count
      while low < high {
        let middle = (low + high) / 2
        let keyStart = Int(starts[middle]) + 2
        var keyEnd = keyStart
        while keyEnd < bytes.count, bytes[keyEnd] != 0x09, bytes[keyEnd] != 0x0A { keyEnd += 1 }
        let key = bytes[keyStart..<keyEnd]
        if key.elementsEqual(wanted) {
          var number: Int32 = -1
          var position = keyEnd + 1
          while position <= bytes.count {
            let byte = position < bytes.count ? bytes[position] : 0x0A
            if byte >= 0x30 && byte <= 0x39 {
              let digit = Int32(byte - 0x30)
              number = number < 0 ? digit : number > 100_000_000 ? number : number * 10 + digit
            } else {
              if number >= 0 && Int(number) < entryCount { found.insert(number) }
              number = -1
              if byte == 0x0A { break }
            }
            position += 1
          }
          return
        }
        if key.lexicographicallyPrecedes(wanted) { low = middle + 1 } else { high = middle }
      }
    }
  }

  /// The key: format, executable, data directory and every skill file with size and time.
  static func key(_ tree: SkillTree) -> [UInt8] {
    var text = magic + "\n"
    var info = stat()
    if stat("/proc/self/exe", &info) == 0 {
      text +=
        "x\t\(info.st_size)\t\(info.st_mtim.tv_sec)\t\(info.st_mtim.tv_nsec)\t\(info.st_ino)\n"
    }
    text += "d\t" + escape(tree.dataDirectory.standardizedFileURL.path) + "\n"
    for file in tree.files {
      text += "k\t\(escape(file.relative))\t\(file.size)\t\(file.modifiedNanoseconds)\n"
    }
    return Array(text.utf8)
  }

  /// The library the index describes, or nil when there is none, it is not private, its key
  /// is not `tree`'s or it does not read back completely.
  static func read(_ indexFile: URL, tree: SkillTree) -> SkillLibrary? {
    guard
      let bytes = try? PrivateFile.read(
        indexFile.path, maximumBytes: maximumSize, ownerOnly: true)
    else { return nil }
    let key = key(tree)
    guard bytes.count > key.count, bytes.starts(with: key) else { return nil }
    return parse(bytes, from: key.count, tree: tree)
  }

  struct MindRecord {
    var kind: UInt8
    var name: String
    var skills: [Int] = []
    var always: [Int32] = []
    var keyStarts: [Int32] = []
  }

  /// The library of the index `bytes`, whose records start at `offset`; nil when a record is
  /// malformed or the index does not end with `end`.
  static func parse(_ bytes: [UInt8], from offset: Int, tree: SkillTree) -> SkillLibrary? {
    guard bytes.count < Int(Int32.max) else { return nil }
    var skillRecords: [(position: Int, focus: [String], first: Int, count: Int)] = []
    var intentStarts: [Int32] = []
    var warnings: [String] = []
    var minds: [MindRecord] = []
    var finished = false
    var lastPosition = -1
    var lineStart = offset
    let count = bytes.count
    func text(_ slice: ArraySlice<UInt8>) -> String? { unescape(slice) }
    func numbers(_ slice: ArraySlice<UInt8>) -> [Int]? {
      var out: [Int] = []
      for part in slice.split(separator: 0x20) {
        guard part.count < 10, let value = Int(String(decoding: part, as: UTF8.self)), value >= 0
        else { return nil }
        out.append(value)
      }
      return out
    }
    while lineStart < count {
      var lineEnd = lineStart
      bytes.withUnsafeBufferPointer { buffer in
        if let found = memchr(buffer.baseAddress! + lineStart, 0x0A, count - lineStart) {
          lineEnd = UnsafeRawPointer(found) - UnsafeRawPointer(buffer.baseAddress!)
        } else {
          lineEnd = count
        }
      }
      defer { lineStart = lineEnd + 1 }
      guard !finished else {
        guard lineEnd == lineStart else { return nil }
        continue
      }
      guard lineEnd > lineStart else { return nil }
      let kind = bytes[lineStart]
      if kind == 0x69 {  // i: read when first asked
        guard lineEnd - lineStart > 2, bytes[lineStart + 1] == 0x09, !skillRecords.isEmpty
        else { return nil }
        intentStarts.append(Int32(lineStart))
        skillRecords[skillRecords.count - 1].count += 1
        continue
      }
      if kind == 0x6B {  // k: searched when a query needs it
        guard lineEnd - lineStart > 2, bytes[lineStart + 1] == 0x09, !minds.isEmpty else {
          return nil
        }
        minds[minds.count - 1].keyStarts.append(Int32(lineStart))
        continue
      }
      let fields = bytes[lineStart..<lineEnd].split(
        separator: 0x09, omittingEmptySubsequences: false)
      if fields.count == 1 && fields[0].elementsEqual("end".utf8) {
        finished = true
        continue
      }
      guard fields[0].count == 1 else { return nil }
      switch (kind, fields.count) {
      case (0x73, 2):  // s
        guard let position = Int(String(decoding: fields[1], as: UTF8.self)),
          tree.files.indices.contains(position), position > lastPosition
        else { return nil }
        lastPosition = position
        skillRecords.append((position, [], intentStarts.count, 0))
      case (0x66, 2):  // f
        guard !skillRecords.isEmpty, let name = text(fields[1]) else { return nil }
        skillRecords[skillRecords.count - 1].focus.append(name)
      case (0x77, 2):  // w
        guard let warning = text(fields[1]) else { return nil }
        warnings.append(warning)
      case (0x6D, 3):  // m
        guard fields[1].count == 1, let name = text(fields[2]) else { return nil }
        minds.append(MindRecord(kind: fields[1][fields[1].startIndex], name: name))
      case (0x65, 2):  // e
        guard !minds.isEmpty, let skills = numbers(fields[1]),
          skills.allSatisfy({ $0 < skillRecords.count })
        else { return nil }
        minds[minds.count - 1].skills = skills
      case (0x61, 2):  // a
        guard !minds.isEmpty, let always = numbers(fields[1]) else { return nil }
        minds[minds.count - 1].always = always.map { Int32(truncatingIfNeeded: $0) }
      default:
        return nil
      }
    }
    guard finished else { return nil }
    let lines = Lines(bytes: bytes, intentStarts: intentStarts)
    let skills = skillRecords.map { record in
      let entry = tree.files[record.position]
      let outline = SkillOutline(
        focus: record.focus, lines: lines, first: record.first, count: record.count)
      return Skill(
        model: entry.model, group: entry.group, language: entry.language, tag: entry.tag,
        outline: outline, source: SkillSource(url: entry.url, outline: outline),
        modified: entry.modified, accessed: entry.accessed)
    }
    func mind(_ record: MindRecord) -> SkillMind {
      let entryCount = record.skills.reduce(0) { $0 + skills[$1].outline.count }
      let table = KeyLines(lines: lines, starts: record.keyStarts, entryCount: entryCount)
      return SkillMind(
        skills: record.skills, of: skills,
        keys: .index(table, always: record.always.filter { Int($0) < entryCount }))
    }
    guard let chat = minds.first(where: { $0.kind == 0x63 }) else { return nil }
    var focus: [String: SkillMind] = [:]
    var persona: [String: SkillMind] = [:]
    for record in minds where record.kind == 0x66 { focus[record.name] = mind(record) }
    for record in minds where record.kind == 0x70 { persona[record.name] = mind(record) }
    var library = SkillLibrary.assemble(
      tree, skills: skills, warnings: warnings,
      minds: SkillLibrary.Minds(chat: mind(chat), focus: focus, persona: persona))
    library.loadedFromIndex = true
    return library
  }

  static func escape(_ text: String) -> String {
    guard text.utf8.contains(where: { $0 == 0x5C || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D })
    else { return text }
    var out = ""
    for character in text.unicodeScalars {
      switch character {
      case "\\": out += "\\\\"
      case "\t": out += "\\t"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      default: out.unicodeScalars.append(character)
      }
    }
    return out
  }

  /// The text of an escaped field (invalid UTF-8 repaired), or nil when it has a bad escape.
  static func unescape(_ field: ArraySlice<UInt8>) -> String? {
    guard field.contains(0x5C) else { return String(decoding: field, as: UTF8.self) }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(field.count)
    var escaped = false
    for byte in field {
      if escaped {
        switch byte {
        case 0x5C: bytes.append(0x5C)
        case 0x74: bytes.append(0x09)
        case 0x6E: bytes.append(0x0A)
        case 0x72: bytes.append(0x0D)
        default: return nil
        }
        escaped = false
      } else if byte == 0x5C {
        escaped = true
      } else {
        bytes.append(byte)
      }
    }
    guard !escaped else { return nil }
    return String(decoding: bytes, as: UTF8.self)
  }
}

extension SkillIndex {
  /// Writes the index while every file is parsed in turn, keeping of each intent only its
  /// index line and its keys (as numbers): the whole collection is never held parsed at once.
  /// The library is then read from the index bytes made, as a later start reads them.
  struct Builder {
    private var body: [UInt8] = []
    private var keyNumbers: [String: Int32] = [:]
    private var keyNames: [String] = []
    /// Per intent (all skills in order): how it is found (0 always, 1 by the rarest of its
    /// keys, 2 by any) and its keys' range in `intentKeys`.
    private var intentFinding: [(kind: UInt8, start: Int32, count: Int32)] = []
    private var intentKeys: [Int32] = []
    /// Per skill: where it goes (model, tag, focus) and its first intent and intent count.
    private var skills: [(model: String, tag: String, focus: [String], first: Int, count: Int)] =
      []

    /// The `i` lines of the skill being read.
    private var pending: [UInt8] = []
    private var pendingCount = 0
    /// How many intents and keys the skills ended so far have: a file begun but not ended
    /// (it did not parse) leaves nothing behind.
    private var committed = (intents: 0, keys: 0)

    /// Starts reading a skill file.
    mutating func begin() {
      pending = []
      pendingCount = 0
      intentFinding.removeSubrange(committed.intents...)
      intentKeys.removeSubrange(committed.keys...)
    }

    /// Ends the skill file begun last, which parsed: its `s`, `f` and `i` lines.
    mutating func end(position: Int, model: String, tag: String, focus: [String]) {
      body += Array("s\t\(position)\n".utf8)
      for name in focus { body += Array("f\t\(SkillIndex.escape(name))\n".utf8) }
      body += pending
      skills.append((model, tag, focus, intentFinding.count - pendingCount, pendingCount))
      committed = (intentFinding.count, intentKeys.count)
      begin()
    }

    /// Adds one intent of the skill begun last, whose utterance line starts at byte `offset`.
    mutating func add(_ intent: SkillIntent, offset: Int) {
      // Bytes appended directly: this runs for every intent of the collection.
      pending.append(contentsOf: "i\t".utf8)
      pending.append(contentsOf: String(SkillMind.rank(intent)).utf8)
      pending.append(0x09)
      pending.append(contentsOf: String(intent.line).utf8)
      pending.append(0x09)
      pending.append(contentsOf: String(offset).utf8)
      for pattern in intent.patterns {
        pending.append(0x09)
        pending.append(contentsOf: SkillIndex.escape(pattern.text).utf8)
      }
      pending.append(0x0A)
      pendingCount += 1
      let start = Int32(intentKeys.count)
      func number(_ key: String) -> Int32 {
        if let known = keyNumbers[key] { return known }
        keyNames.append(key)
        keyNumbers[key] = Int32(keyNames.count - 1)
        return Int32(keyNames.count - 1)
      }
      switch SkillMind.keys(intent.patterns) {
      case .none: intentFinding.append((0, start, 0))
      case .shared(let keys):
        intentKeys += keys.map(number)
        intentFinding.append((1, start, Int32(keys.count)))
      case .any(let keys):
        intentKeys += keys.map(number)
        intentFinding.append((2, start, Int32(keys.count)))
      }
    }

    /// The index bytes after `key`: the records added, the warnings, the minds, `end`.
    func finish(key: [UInt8], warnings: [String]) -> [UInt8] {
      var out = key
      out.reserveCapacity(key.count + body.count * 5 / 4)
      out += body
      for warning in warnings { out += Array("w\t\(SkillIndex.escape(warning))\n".utf8) }
      let members = SkillLibrary.mindMembers(skills.map { ($0.model, $0.tag, $0.focus) })
      mind("c", "", members.chat, into: &out)
      for (name, list) in members.focus.sorted(by: { $0.key < $1.key }) {
        mind("f", name, list, into: &out)
      }
      for (name, list) in members.persona.sorted(by: { $0.key < $1.key }) {
        mind("p", name, list, into: &out)
      }
      out += Array("end\n".utf8)
      return out
    }

    /// The `m`, `e`, `a` and `k` lines of the mind of `members` (skill numbers), with the same
    /// key table `SkillMind.init(skills:of:)` builds.
    private func mind(_ kind: String, _ name: String, _ members: [Int], into out: inout [UInt8]) {
      out += Array("m\t\(kind)\t\(SkillIndex.escape(name))\n".utf8)
      out += Array(("e\t" + members.map(String.init).joined(separator: " ") + "\n").utf8)
      var frequency: [Int32: Int] = [:]
      for skill in members {
        for intent in skills[skill].first..<(skills[skill].first + skills[skill].count)
        where intentFinding[intent].kind == 1 {
          let found = intentFinding[intent]
          for key in intentKeys[Int(found.start)..<Int(found.start + found.count)] {
            frequency[key, default: 0] += 1
          }
        }
      }
      var always: [Int32] = []
      var byKey: [Int32: [Int32]] = [:]
      var entry: Int32 = 0
      for skill in members {
        for intent in skills[skill].first..<(skills[skill].first + skills[skill].count) {
          let found = intentFinding[intent]
          let keys = intentKeys[Int(found.start)..<Int(found.start + found.count)]
          switch found.kind {
          case 0: always.append(entry)
          case 1:
            // Ties go to the key first in the intent, as `min(by:)` keeps the first.
            if let rarest = keys.min(by: { frequency[$0, default: 0] < frequency[$1, default: 0] })
            {
              byKey[rarest, default: []].append(entry)
            }
          default:
            for key in keys { byKey[key, default: []].append(entry) }
          }
          entry += 1
        }
      }
      out += Array(("a\t" + always.map(String.init).joined(separator: " ") + "\n").utf8)
      let keys = byKey.keys.filter { key in
        !keyNames[Int(key)].utf8.contains { $0 == 0x5C || $0 < 0x20 }
      }
      for key in keys.sorted(by: {
        keyNames[Int($0)].utf8.lexicographicallyPrecedes(keyNames[Int($1)].utf8)
      }) {
        out += Array("k\t\(keyNames[Int(key)])\t".utf8)
        out += Array(((byKey[key] ?? []).map(String.init).joined(separator: " ") + "\n").utf8)
      }
    }
  }
}
