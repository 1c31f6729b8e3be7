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
    let models = dataDirectory.appendingPathComponent("models")
    var files: [File] = []
    var groupsByModel: [String: [String]] = [:]
    for model in SkillLibrary.subdirectories(of: models) {
      let modelURL = models.appendingPathComponent(model)
      let groups = SkillLibrary.subdirectories(of: modelURL)
      groupsByModel[model] = groups
      for group in groups {
        let groupURL = modelURL.appendingPathComponent(group)
        for language in SkillLibrary.subdirectories(of: groupURL) {
          let languageURL = groupURL.appendingPathComponent(language)
          for name in SkillLibrary.files(in: languageURL) where name.hasSuffix(".txt") {
            let url = languageURL.appendingPathComponent(name)
            var info = stat()
            let found = stat(url.path, &info) == 0
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
/// compiled utterances and the rank.
struct SkillOutline: Sendable {
  struct Intent: Sendable {
    /// The utterances as written.
    var texts: [String]
    /// The utterances compiled, when the file was parsed; from the index they are compiled
    /// when a query first finds the intent.
    var compiled: [SkillPattern]?
    var keys: SkillMind.Keys
    var rank: Int64
  }

  var focus: [String]
  var intents: [Intent]

  init(_ file: SkillFile) {
    focus = file.focus
    intents = file.intents.map {
      Intent(
        texts: $0.patterns.map(\.text), compiled: $0.patterns,
        keys: SkillMind.keys($0.patterns), rank: SkillMind.rank($0))
    }
  }

  init(focus: [String], intents: [Intent]) {
    self.focus = focus
    self.intents = intents
  }

  /// Whether `file` has exactly these focus names and utterances, intent by intent.
  func describes(_ file: SkillFile) -> Bool {
    file.focus == focus && file.intents.count == intents.count
      && zip(file.intents, intents).allSatisfy { parsed, outlined in
        parsed.patterns.map(\.text) == outlined.texts
      }
  }
}

/// Where a skill's parsed file comes from: given at load, or read and parsed on first use.
final class SkillSource: Sendable {
  private let url: URL?
  private let outline: SkillOutline?
  private let parsed: Mutex<SkillFile?>

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
}

/// The skill index: a private file in the server's state directory holding, for a data
/// directory, the outline of every skill and the load warnings, keyed by every skill file's
/// path, size and modification time and by the running executable. A start whose key matches
/// builds the library from it without parsing a file; a key that differs in any way, or an
/// index that does not read back, is ignored and rewritten.
///
/// Format (UTF-8 text, one record a line, fields separated by tabs, `\`, tab, LF and CR
/// escaped): the key lines, then `s <file position>` per skill followed by its `f <name>` and
/// `i <rank> <utterance>…` lines, and `w <warning>` lines, ending with `end`.
enum SkillIndex {
  static let magic = "susi skill index 1"
  static let maximumSize = 256 << 20

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

  static func write(_ library: SkillLibrary, files: [Int], tree: SkillTree, to indexFile: URL) {
    var text = ""
    for (skill, position) in zip(library.skills, files) {
      text += "s\t\(position)\n"
      for name in skill.outline.focus { text += "f\t\(escape(name))\n" }
      for intent in skill.outline.intents {
        text += "i\t\(intent.rank)\t"
        switch intent.keys {
        case .none: text += "n"
        case .shared(let keys): text += (["s"] + keys.map(escape)).joined(separator: " ")
        case .any(let keys): text += (["a"] + keys.map(escape)).joined(separator: " ")
        }
        for pattern in intent.texts { text += "\t" + escape(pattern) }
        text += "\n"
      }
    }
    for warning in library.warnings { text += "w\t\(escape(warning))\n" }
    text += "end\n"
    // The index only saves time: a folder that cannot hold it leaves every start parsing.
    try? PrivateFile.makeDirectory(indexFile.deletingLastPathComponent().path)
    try? PrivateFile.write(key(tree) + Array(text.utf8), to: indexFile.path)
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
    // Checked once here, so that fields (cut at ASCII bytes) decode without checks.
    guard String(decoding: bytes, as: UTF8.self).utf8.elementsEqual(bytes) else { return nil }
    var skills: [Skill] = []
    var warnings: [String] = []
    var current: (position: Int, focus: [String], intents: [SkillOutline.Intent])?
    var finished = false
    var lastPosition = -1
    func flush() {
      guard let skill = current else { return }
      let entry = tree.files[skill.position]
      let outline = SkillOutline(focus: skill.focus, intents: skill.intents)
      skills.append(
        Skill(
          model: entry.model, group: entry.group, language: entry.language, tag: entry.tag,
          outline: outline, source: SkillSource(url: entry.url, outline: outline),
          modified: entry.modified, accessed: entry.accessed))
      current = nil
    }
    for line in bytes[key.count...].split(separator: 0x0A, omittingEmptySubsequences: false) {
      guard !finished else {
        guard line.isEmpty else { return nil }
        continue
      }
      let fields = line.split(separator: 0x09, omittingEmptySubsequences: false)
      guard let kind = fields.first else { return nil }
      // The record's kind: its one letter, or `e` for `end`.
      let letter: UInt8 =
        kind.count == 1 ? kind[kind.startIndex] : kind.elementsEqual("end".utf8) ? 0x45 : 0
      switch (letter, fields.count) {
      case (0x73, 2):
        flush()
        guard let position = Int(String(decoding: fields[1], as: UTF8.self)),
          tree.files.indices.contains(position), position > lastPosition
        else { return nil }
        lastPosition = position
        current = (position, [], [])
      case (0x66, 2):
        guard current != nil, let name = unescape(fields[1]) else { return nil }
        current?.focus.append(name)
      case (0x69, 3...):
        guard current != nil, let rank = Int64(String(decoding: fields[1], as: UTF8.self)),
          let keyText = unescape(fields[2])
        else { return nil }
        let words = keyText.utf8.split(separator: 0x20).map { String(Substring($0)) }
        let keys: SkillMind.Keys
        switch words.first {
        case "n" where words.count == 1: keys = .none
        case "s" where words.count > 1: keys = .shared(Array(words.dropFirst()))
        case "a" where words.count > 1: keys = .any(Array(words.dropFirst()))
        default: return nil
        }
        var texts: [String] = []
        for field in fields.dropFirst(3) {
          guard let text = unescape(field) else { return nil }
          texts.append(text)
        }
        current?.intents.append(
          SkillOutline.Intent(texts: texts, compiled: nil, keys: keys, rank: rank))
      case (0x77, 2):
        flush()
        guard let warning = unescape(fields[1]) else { return nil }
        warnings.append(warning)
      case (0x45, 1):
        flush()
        finished = true
      default:
        return nil
      }
    }
    guard finished else { return nil }
    var library = SkillLibrary.assemble(tree, skills: skills, warnings: warnings)
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

  /// The text of an escaped field (of valid UTF-8), or nil when it has a bad escape.
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
