import Foundation
import Glibc
import SusiCrypto
import SusiJSON
import Testing

@testable import SusiServer

@Suite struct SkillIndexTests {
  /// Skills using most of the language: wildcards, regular expressions, alternatives, focus
  /// and persona skills, conditions, console data, a dropped catch-all, escapes.
  static let skills: [String: String] = [
    "Social/en/greet": "hello|hi there\nHello you!\n\nhi *\nHi, $1$.\n",
    "Social/de/greet": "hallo\nHallo!\n",
    "Knowledge/en/facts": """
    ::name Facts
    ::author someone

    what is *|what's *
    !example: what is a cat
    I do not know what $1$ is.

    what is (a|an) (dog|cow)
    A $2$ is an animal.

    *
    dropped catch-all

    tab\\\\back slash
    escaped

    remember *
    I will remember $1$.>thing

    what do you remember
    ?$thing$:You remember $thing$:Nothing yet

    list animals
    !console:Animals: $name$
    {"data": [{"name": "cat"}, {"name": "dog"}]}
    eol
    """,
    "Games/en/quiz": "::on quiz\n\nstart *\nQuestion about $1$?\n",
  ]

  static let queries = [
    "hello", "Hi there", "hi Ada", "hallo", "what is a dog", "what's tea", "what is an cow",
    "remember milk", "what do you remember", "list animals", "tab\\back slash", "start maths",
    "nonsense words", "", "Hi there, what is a cow?",
  ]

  func answers(_ server: TestServer) throws -> [String] {
    try Self.queries.map { query in
      let reply = try server.json("/susi/chat.json", [("q", query), ("language", "en")])
      let answers = reply["answers"] ?? .null
      return answers.compactText
    }
  }

  func indexFile(_ state: URL) -> URL {
    state.appendingPathComponent(SkillLibrary.indexFileName)
  }

  @Test func aServerFromTheIndexAnswersExactlyAsOneFromTheFiles() throws {
    let data = try dataDirectory(Self.skills)
    let persona = data.appendingPathComponent("models/persona/Personas/en/Ada.txt")
    try FileManager.default.createDirectory(
      at: persona.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data("hi *\nAda says hi to $1$.\n".utf8).write(to: persona)
    let fromFiles = try TestServer(dataDirectory: data)
    #expect(!fromFiles.handler.library.loadedFromIndex)
    let state = try temporaryDirectory()
    let building = try TestServer(stateDirectory: state, dataDirectory: data)
    #expect(!building.handler.library.loadedFromIndex)
    #expect(FileManager.default.fileExists(atPath: indexFile(state).path))
    let fromIndex = try TestServer(
      stateDirectory: try temporaryCopy(of: state), dataDirectory: data)
    #expect(fromIndex.handler.library.loadedFromIndex)
    let expected = try answers(fromFiles)
    #expect(expected.contains { $0.contains("You remember milk") })
    #expect(try answers(fromIndex) == expected)
    // The first start reads the index it has just written, as every later start does.
    #expect(try answers(building) == expected)
    #expect(building.handler.library.warnings == fromFiles.handler.library.warnings)
    #expect(fromIndex.handler.library.warnings == fromFiles.handler.library.warnings)
    #expect(
      fromIndex.handler.library.skills.map(\.serverPath)
        == fromFiles.handler.library.skills.map(\.serverPath))
    let focus = try fromIndex.json("/susi/chat.json", [("q", "start maths"), ("focus", "quiz")])
    let focusFiles = try fromFiles.json(
      "/susi/chat.json", [("q", "start maths"), ("focus", "quiz")])
    #expect((focus["answers"] ?? .null).compactText.contains("Question about maths"))
    #expect(
      (focus["answers"] ?? .null).compactText
        == (focusFiles["answers"] ?? .null).compactText)
  }

  /// A state folder of its own holding the same index, so that its server state starts empty.
  func temporaryCopy(of state: URL) throws -> URL {
    let copy = try temporaryDirectory()
    let bytes = try Data(contentsOf: indexFile(state))
    let target = indexFile(copy)
    try bytes.write(to: target)
    chmod(target.path, 0o600)
    return copy
  }

  @Test func aChangedAddedOrRemovedFileIsReadAgainNotTakenFromTheIndex() throws {
    let data = try dataDirectory(["Social/en/greet": "hello\nHello you!\n"])
    let state = try temporaryDirectory()
    let index = indexFile(state)
    #expect(!SkillLibrary.load(from: data, indexFile: index).loadedFromIndex)
    #expect(SkillLibrary.load(from: data, indexFile: index).loadedFromIndex)

    let greet = data.appendingPathComponent("models/general/Social/en/greet.txt")
    try Data("hello\nHi again!\n".utf8).write(to: greet)
    var times = [
      timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000_000, tv_nsec: 0),
    ]
    #expect(utimensat(AT_FDCWD, greet.path, &times, 0) == 0)
    let changed = SkillLibrary.load(from: data, indexFile: index)
    #expect(!changed.loadedFromIndex)
    #expect(
      changed.skills.first?.file.intents.first?.actions.first.map {
        if case .answer(let phrases, _) = $0 { phrases } else { [] }
      } == ["Hi again!"])
    let again = SkillLibrary.load(from: data, indexFile: index)
    #expect(again.loadedFromIndex)
    #expect(
      again.skills.first?.file.intents.first?.actions.first.map {
        if case .answer(let phrases, _) = $0 { phrases } else { [] }
      } == ["Hi again!"])

    let added = data.appendingPathComponent("models/general/Social/en/bye.txt")
    try Data("bye\nBye!\n".utf8).write(to: added)
    let withAdded = SkillLibrary.load(from: data, indexFile: index)
    #expect(!withAdded.loadedFromIndex)
    #expect(withAdded.skills.map(\.tag) == ["bye", "greet"])
    #expect(SkillLibrary.load(from: data, indexFile: index).loadedFromIndex)

    try FileManager.default.removeItem(at: added)
    let withRemoved = SkillLibrary.load(from: data, indexFile: index)
    #expect(!withRemoved.loadedFromIndex)
    #expect(withRemoved.skills.map(\.tag) == ["greet"])
  }

  @Test func aDamagedOrSharedIndexIsIgnoredAndRewrittenPrivately() throws {
    let data = try dataDirectory(["Social/en/greet": "hello\nHello you!\n"])
    let state = try temporaryDirectory()
    let index = indexFile(state)
    _ = SkillLibrary.load(from: data, indexFile: index)
    var info = stat()
    #expect(stat(index.path, &info) == 0 && info.st_mode & 0o777 == 0o600)

    var bytes = try Data(contentsOf: index)
    bytes.removeLast(4)
    try bytes.write(to: index)
    chmod(index.path, 0o600)
    let truncated = SkillLibrary.load(from: data, indexFile: index)
    #expect(!truncated.loadedFromIndex)
    #expect(truncated.skills.map(\.tag) == ["greet"])
    #expect(SkillLibrary.load(from: data, indexFile: index).loadedFromIndex)

    chmod(index.path, 0o644)
    #expect(!SkillLibrary.load(from: data, indexFile: index).loadedFromIndex)
    #expect(stat(index.path, &info) == 0 && info.st_mode & 0o777 == 0o600)
  }

  @Test func aFileChangedAfterTheIndexWasReadAnswersNothingRatherThanTheWrongIntent() throws {
    let data = try dataDirectory(["Social/en/greet": "hello\nHello you!\n\nbye\nBye!\n"])
    let index = indexFile(try temporaryDirectory())
    _ = SkillLibrary.load(from: data, indexFile: index)
    let library = SkillLibrary.load(from: data, indexFile: index)
    #expect(library.loadedFromIndex)
    let greet = data.appendingPathComponent("models/general/Social/en/greet.txt")
    try Data("bye\nBye!\n".utf8).write(to: greet)
    // Read alone (as an answer reads it), neither intent is where the index put it.
    #expect(library.skills.first?.intent(0) == nil)
    #expect(library.skills.first?.intent(1) == nil)
    #expect(library.skills.first?.file.intents.isEmpty == true)
  }

  @Test func anIndexKeyTableFindsEveryKeyAndNothingElse() throws {
    let bytes = Array("k\tapple\t0 2\nk\tbanana\t1\nk\tcherry\t7 3\n".utf8)
    let lines = SkillIndex.Lines(bytes: bytes, intentStarts: [])
    let table = SkillIndex.KeyLines(lines: lines, starts: [0, 12, 23], entryCount: 5)
    func find(_ token: String) -> Set<Int32> {
      var found = Set<Int32>()
      table.entries(for: token, into: &found)
      return found
    }
    #expect(find("apple") == [0, 2])
    #expect(find("banana") == [1])
    // Entries beyond the mind's are ignored, not trusted.
    #expect(find("cherry") == [3])
    #expect(find("appl").isEmpty && find("apples").isEmpty && find("").isEmpty)
  }

  @Test func aFileThatDoesNotParseLeavesNoIntentsBehindInTheIndex() throws {
    let data = try dataDirectory([
      "Social/en/a": "hello\nHello!\n", "Social/en/b": "bye\nBye!\n",
    ])
    try Data([0x68, 0x69, 0x0A, 0xFF, 0x0A]).write(
      to: data.appendingPathComponent("models/general/Social/en/a2.txt"))
    let index = indexFile(try temporaryDirectory())
    let first = SkillLibrary.load(from: data, indexFile: index)
    #expect(first.skills.map(\.tag) == ["a", "b"])
    #expect(first.warnings.contains { $0.contains("a2.txt: skipped") })
    let engine = AnswerEngine(library: SkillLibrary.load(from: data, indexFile: index))
    var random = SeededRandom(seed: 1)
    let context = AnswerEngine.Context(language: "en", serverURL: "http://x", now: Date())
    #expect(engine.think(query: "bye", context: context, random: &random).skill?.tag == "b")
    #expect(engine.think(query: "hello", context: context, random: &random).skill?.tag == "a")
  }
}
