public import Foundation
import Glibc
import SusiFiles

/// One loaded skill: where it lives in the `models/<model>/<group>/<language>/` tree and what
/// its file says.
public struct Skill: Sendable {
  public var model: String
  public var group: String
  public var language: String
  /// The file name without `.txt`: the key clients use (`Flip a coin`).
  public var tag: String
  /// The parsed file: held from the start, or, for a skill loaded from the skill index, read
  /// on first use (see `SkillSource`).
  public var file: SkillFile { source.file }
  public var modified: Date
  public var accessed: Date?
  /// What the matching needs without the whole file: focus names and each intent's
  /// utterances and rank.
  let outline: SkillOutline
  let source: SkillSource

  public init(
    model: String, group: String, language: String, tag: String, file: SkillFile,
    modified: Date, accessed: Date?
  ) {
    self.init(
      model: model, group: group, language: language, tag: tag, outline: SkillOutline(file),
      source: SkillSource(file: file), modified: modified, accessed: accessed)
  }

  init(
    model: String, group: String, language: String, tag: String, outline: SkillOutline,
    source: SkillSource, modified: Date, accessed: Date?
  ) {
    self.model = model
    self.group = group
    self.language = language
    self.tag = tag
    self.modified = modified
    self.accessed = accessed
    self.outline = outline
    self.source = source
  }

  /// The intent at `number`, as matching numbers them; nil when the skill's file changed since
  /// its index was written and no longer has it.
  func intent(_ number: Int) -> SkillIntent? { source.intent(number) }

  /// The path the real server reports in `answers[].skills`.
  public var serverPath: String { "/susi_skill_data/" + relativePath }

  /// The file under the data directory: `models/MODEL/GROUP/LANGUAGE/NAME.txt`.
  var relativePath: String { "models/\(model)/\(group)/\(language)/\(tag).txt" }

  /// The file and 1-based line of the 0-based `line`, for a warning, as `--check-skills`
  /// prints them.
  func place(line: Int) -> String { "\(relativePath):\(line + 1)" }
}

/// Every skill under a data directory's `models/` folder, loaded once at start.
///
/// Layout: `models/<model>/<group>/<language>/<skill>.txt`, images next to the skills under
/// their language folder. Files that cannot be read are skipped and reported in `warnings`.
public struct SkillLibrary: Sendable {
  public let dataDirectory: URL
  public let skills: [Skill]
  /// Group folder names per model, sorted (empty groups included).
  public let groupsByModel: [String: [String]]
  /// Files skipped and problems stepped around, one line each, naming the file.
  public let warnings: [String]
  /// The languages each skill tag exists in, per model and group, sorted.
  private let languagesByTag: [String: [String]]
  /// The intents that answer chat: those of `models/general`, without focus skills.
  let mind: SkillMind
  /// Focus skills (`::on NAME`) by name: they answer only a chat with `focus=NAME`.
  let focusMinds: [String: SkillMind]
  /// Persona skills (`models/persona/…/NAME.txt`) by lower-case name: they answer only a chat
  /// with `persona=NAME`.
  let personaMinds: [String: SkillMind]

  /// Whether this library was built from the skill index rather than by parsing every file.
  var loadedFromIndex = false

  /// The skill index's file name in the server's state directory.
  public static let indexFileName = "skill-index"

  /// The model whose skills answer chat.
  public static let chatModel = "general"

  /// The minds of a library, when they are known (from the skill index).
  struct Minds {
    var chat: SkillMind
    var focus: [String: SkillMind]
    var persona: [String: SkillMind]
  }

  init(
    dataDirectory: URL, skills: [Skill], groupsByModel: [String: [String]], warnings: [String],
    languagesByTag: [String: [String]], minds: Minds? = nil
  ) {
    self.dataDirectory = dataDirectory
    self.skills = skills
    self.groupsByModel = groupsByModel
    self.warnings = warnings
    self.languagesByTag = languagesByTag
    if let minds {
      mind = minds.chat
      focusMinds = minds.focus
      personaMinds = minds.persona
      return
    }
    let members = SkillLibrary.mindMembers(skills.map { ($0.model, $0.tag, $0.outline.focus) })
    let chat = members.chat
    let focus = members.focus
    let persona = members.persona
    mind = SkillMind(skills: chat, of: skills)
    focusMinds = focus.mapValues { SkillMind(skills: $0, of: skills) }
    personaMinds = persona.mapValues { SkillMind(skills: $0, of: skills) }
  }

  /// Which skills answer chat (those of `models/general` without focus names), which answer
  /// only a chat with `focus=NAME` (by name), and which only one with `persona=NAME` (persona
  /// skills, by lower-case name); each list in the skills' order.
  static func mindMembers(_ skills: [(model: String, tag: String, focus: [String])]) -> (
    chat: [Int], focus: [String: [Int]], persona: [String: [Int]]
  ) {
    var chat: [Int] = []
    var focus: [String: [Int]] = [:]
    var persona: [String: [Int]] = [:]
    for (index, skill) in skills.enumerated() {
      if skill.model == "persona" {
        persona[skill.tag.lowercased(), default: []].append(index)
      } else if skill.model == SkillLibrary.chatModel {
        if skill.focus.isEmpty {
          chat.append(index)
        } else {
          for name in skill.focus { focus[name, default: []].append(index) }
        }
      }
    }
    return (chat, focus, persona)
  }

  /// Loads every skill under `dataDirectory/models`. With `indexFile`, a start whose skill
  /// files are all as the index recorded them (same names, sizes and modification times, same
  /// `susi` executable) reads the index instead of every file and parses a skill's file only
  /// when it is first needed; otherwise every file is parsed and the index is written afresh.
  public static func load(from dataDirectory: URL, indexFile: URL? = nil) -> SkillLibrary {
    let tree = SkillTree.scan(dataDirectory)
    guard let indexFile else { return parseAll(tree) }
    if let library = SkillIndex.read(indexFile, tree: tree) { return library }
    return index(tree, into: indexFile)
  }

  /// Parses every file of `tree` one after the other into a skill index, writes it to
  /// `indexFile`, and returns the library read from it (the files are parsed again when first
  /// needed), so that the whole collection is never held parsed at once.
  static func index(_ tree: SkillTree, into indexFile: URL) -> SkillLibrary {
    var builder = SkillIndex.Builder()
    var warnings: [String] = []
    for (position, entry) in tree.files.enumerated() {
      do {
        guard let bytes = try AtomicFile.read(entry.url, limit: SkillParser.maximumFileSize)
        else { continue }
        var problems: [String] = []
        builder.begin()
        let lineStarts = SkillParser.lineStarts(bytes)
        let file = try SkillParser.parse(bytes, acceptCatchAll: false) { intent in
          for problem in intent.patterns.compactMap(\.problem) {
            problems.append("\(entry.relative): line \(intent.line + 1): \(problem)")
          }
          builder.add(intent, offset: lineStarts[min(intent.line, lineStarts.count - 1)])
        }
        builder.end(position: position, model: entry.model, tag: entry.tag, focus: file.focus)
        warnings += file.warnings.map { "\(entry.relative): \($0)" } + problems
      } catch {
        warnings.append("\(entry.relative): skipped: \(error)")
      }
    }
    let key = SkillIndex.key(tree)
    let bytes = builder.finish(key: key, warnings: warnings)
    // The index only saves time: a folder that cannot hold it leaves every start parsing.
    try? PrivateFile.makeDirectory(indexFile.deletingLastPathComponent().path)
    try? PrivateFile.write(bytes, to: indexFile.path)
    guard var library = SkillIndex.parse(bytes, from: key.count, tree: tree) else {
      return parseAll(tree)
    }
    library.loadedFromIndex = false
    return library
  }

  /// Parses every file of `tree` and keeps them.
  static func parseAll(_ tree: SkillTree) -> SkillLibrary {
    var skills: [Skill] = []
    var warnings: [String] = []
    for entry in tree.files {
      do {
        guard let bytes = try AtomicFile.read(entry.url, limit: SkillParser.maximumFileSize)
        else { continue }
        let file = try SkillParser.parse(bytes, acceptCatchAll: false)
        warnings += file.warnings.map { "\(entry.relative): \($0)" }
        for intent in file.intents {
          for problem in intent.patterns.compactMap(\.problem) {
            warnings.append("\(entry.relative): line \(intent.line + 1): \(problem)")
          }
        }
        skills.append(
          Skill(
            model: entry.model, group: entry.group, language: entry.language,
            tag: entry.tag, file: file, modified: entry.modified, accessed: entry.accessed))
      } catch {
        warnings.append("\(entry.relative): skipped: \(error)")
      }
    }
    return assemble(tree, skills: skills, warnings: warnings)
  }

  /// The library of `skills` found in `tree`.
  static func assemble(
    _ tree: SkillTree, skills: [Skill], warnings: [String], minds: Minds? = nil
  ) -> SkillLibrary {
    var languages: [String: [String]] = [:]
    for skill in skills {
      languages[languageKey(skill.model, skill.group, skill.tag), default: []].append(
        skill.language)
    }
    return SkillLibrary(
      dataDirectory: tree.dataDirectory, skills: skills, groupsByModel: tree.groupsByModel,
      warnings: warnings, languagesByTag: languages.mapValues { $0.sorted() }, minds: minds)
  }

  /// Whether `dataDirectory` holds any skill file (`models/*/*/*/*.txt`), without reading one.
  public static func hasSkillFiles(in dataDirectory: URL) -> Bool {
    let models = dataDirectory.appendingPathComponent("models")
    for model in subdirectories(of: models) {
      let modelURL = models.appendingPathComponent(model)
      for group in subdirectories(of: modelURL) {
        let groupURL = modelURL.appendingPathComponent(group)
        for language in subdirectories(of: groupURL)
        where files(in: groupURL.appendingPathComponent(language)).contains(where: {
          $0.hasSuffix(".txt")
        }) {
          return true
        }
      }
    }
    return false
  }

  private static func languageKey(_ model: String, _ group: String, _ tag: String) -> String {
    "\(model)\u{0}\(group)\u{0}\(tag)"
  }

  /// The languages a skill tag of a group exists in (its `supported_languages`).
  public func languages(model: String, group: String, tag: String) -> [String] {
    languagesByTag[SkillLibrary.languageKey(model, group, tag)] ?? []
  }

  /// The groups of `model`, or nil when the model does not exist.
  public func groups(model: String) -> [String]? { groupsByModel[model] }

  /// The skill with exactly this tag, or nil.
  public func skill(model: String, group: String, language: String, tag: String) -> Skill? {
    skills.first {
      $0.model == model && $0.group == group && $0.language == language && $0.tag == tag
    }
  }

  /// The skill a rating call means: the tag compared case-insensitively, then the `::name`
  /// with `_` read as a space (as the real server matches `skill=`).
  public func skillForRating(model: String, group: String, language: String, name: String)
    -> Skill?
  {
    let candidates = skills.filter {
      $0.model == model && $0.group == group && $0.language == language
    }
    let wanted = name.lowercased()
    if let byTag = candidates.first(where: { $0.tag.lowercased() == wanted }) { return byTag }
    let spaced = wanted.replacingOccurrences(of: "_", with: " ")
    return candidates.first {
      ($0.file.header("name")?.lowercased()).map { $0 == wanted || $0 == spaced } ?? false
    }
  }

  /// The file for an image named relative to a skill's language folder (`images/coin.png`),
  /// if it lies inside the `models` tree; every parameter goes through `ContainedFile`.
  public func imageFile(model: String, group: String, language: String, image: String) -> URL? {
    ContainedFile.resolve(
      [model, group, language] + ContainedFile.segments(image),
      under: dataDirectory.appendingPathComponent("models"))
  }

  static func subdirectories(of url: URL) -> [String] { subdirectories(atPath: url.path) }

  static func files(in url: URL) -> [String] { files(atPath: url.path) }

  static func subdirectories(atPath path: String) -> [String] {
    entries(atPath: path).filter(\.isDirectory).map(\.name)
  }

  static func files(atPath path: String) -> [String] {
    entries(atPath: path).filter { !$0.isDirectory }.map(\.name)
  }

  /// Visible entries of a folder (symbolic links read as what they point to), sorted so that
  /// every run sees the same order; none when it cannot be read.
  private static func entries(atPath path: String) -> [(name: String, isDirectory: Bool)] {
    guard let directory = opendir(path) else { return [] }
    defer { closedir(directory) }
    var out: [(name: String, isDirectory: Bool)] = []
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      guard !name.hasPrefix(".") else { continue }
      let isDirectory: Bool
      switch Int32(entry.pointee.d_type) {
      case Int32(DT_DIR): isDirectory = true
      case Int32(DT_REG): isDirectory = false
      default:
        var info = stat()
        guard stat(path + "/" + name, &info) == 0 else { continue }
        isDirectory = info.st_mode & S_IFMT == S_IFDIR
      }
      out.append((name, isDirectory))
    }
    return out.sorted { $0.name < $1.name }
  }
}
