import Foundation
import SusiCrypto
import SusiJSON
import Testing

@testable import SusiServer

/// The answer lines of an intent, each with its alternatives.
func answers(_ intent: SkillIntent?) -> [[String]] {
  (intent?.actions ?? []).compactMap { action in
    if case .answer(let phrases, _) = action { return phrases }
    return nil
  }
}

@Suite struct SkillParserTests {
  @Test func readsHeadersIntentsAndExamples() throws {
    let file = try SkillParser.parse(
      """
      ::name Flip a coin
      ::author Ada Stone
      ::description Flips a coin

      flip a coin|Toss a coin | Roll a coin
      !example:flip a coin
      heads|tails
      """)
    #expect(file.header("name") == "Flip a coin")
    #expect(file.header("description") == "Flips a coin")
    #expect(file.header("image") == nil)
    #expect(file.intents.count == 1)
    #expect(file.intents[0].patterns.map(\.text) == ["flip a coin", "Toss a coin", "Roll a coin"])
    #expect(file.examples == ["flip a coin"])
    #expect(file.intents[0].answerLine == 6)
    #expect(answers(file.intents[0]) == [["heads", "tails"]])
    #expect(file.warnings.isEmpty)
  }

  @Test func toleratesCRLFAndTabs() throws {
    let file = try SkillParser.parse(
      "::name\tJoke\r\n::author Someone\r\n\r\ntell me a joke\r\n!example:\ttell me a joke\r\nha\tha\r\n"
    )
    #expect(file.header("name") == "Joke")
    #expect(file.examples == ["tell me a joke"])
    #expect(answers(file.intents.first) == [["ha    ha"]])
  }

  @Test func emptyHeaderValuesAndHeadersWithoutSpaceAreNull() throws {
    let file = try SkillParser.parse(
      "::developer_privacy_policy\n::terms_of_use   \n::image images/x.png\n\nhi\nhello\n")
    #expect(file.header("developer_privacy_policy") == nil)
    #expect(file.header("terms_of_use") == nil)
    #expect(file.headers.map(\.key) == ["developer_privacy_policy", "terms_of_use", "image"])
    #expect(file.header("image") == "images/x.png")
  }

  @Test func skipsCommentsAndJoinsBackslashLines() throws {
    let file = try SkillParser.parse(
      """
      # a comment before anything
      ::name Joined

      hello|\\
      hi there
      # a comment inside the block
      !example:hello
      first part\\
      second part

      good morning
      \\|good day
      fine
      """)
    #expect(file.intents.count == 2)
    #expect(file.intents[0].patterns.map(\.text) == ["hello", "hi there"])
    #expect(answers(file.intents[0]) == [["first part second part"]])
    #expect(file.intents[1].patterns.map(\.text) == ["good morning", "good day"])
  }

  @Test func everyAnswerLineOfABlockIsAnAnswer() throws {
    let file = try SkillParser.parse("hello\nhi\nbye\nsee you | cheers\n")
    #expect(file.intents.map { $0.patterns.map(\.text) } == [["hello"]])
    #expect(answers(file.intents.first) == [["hi"], ["bye"], ["see you", "cheers"]])
    #expect(file.warnings.isEmpty)
  }

  @Test func readsConsoleRulesWithDataAndActions() throws {
    let file = try SkillParser.parse(
      """
      show the table
      !console:Here: $title$
      {
        "data": [{"title": "A"}, {"title": "B"}],
        "actions": [{"type": "table", "columns": {"title": "Title"}}]
      }
      eol
      """)
    guard case .console(let rule) = file.intents.first?.rule else {
      Issue.record("expected a console rule")
      return
    }
    #expect(answers(file.intents.first) == [["Here: $title$"]])
    #expect(rule.rows?.count == 2)
    guard case .other(let table) = file.intents.first?.actions.last else {
      Issue.record("expected the table action")
      return
    }
    #expect(table["type"] == "table")
  }

  @Test func unterminatedConsoleRuleIsSkippedAndLaterIntentsSurvive() throws {
    let file = try SkillParser.parse(
      """
      broken
      !console:$x$
      {"data": [

      hello
      hi
      """)
    #expect(file.intents.map { $0.patterns.map(\.text) } == [["hello"]])
    #expect(file.warnings.contains { $0.message.contains("eol") })
  }

  @Test func consoleJSONThatDoesNotParseIsSkipped() throws {
    let file = try SkillParser.parse("bad json\n!console:x\n{\"data\": [1,}\neol\n\nok\nyes\n")
    #expect(file.intents.count == 1)
    #expect(file.warnings.contains { $0.message.contains("does not parse") })
  }

  @Test func consoleJSONIsReadAsLenientlyAsTheRealServerReadsIt() throws {
    let file = try SkillParser.parse(
      """
      lenient
      !console:$a$ $b$ $c$
      {'data': [{a: 'one', b : two; c:3,},], n: [1,,2], 'q': 'it\\'s', none: null,
      "actions":[{"type":"answer","expression":$a$}];
      }]
      }
      eol
      """)
    guard case .console(let rule) = file.intents.first?.rule else {
      Issue.record("expected a console rule, got warnings \(file.warnings)")
      return
    }
    #expect(file.warnings.isEmpty)
    #expect(rule.definition["data"] == [["a": "one", "b": "two", "c": 3]])
    #expect(rule.definition["actions"]?.array?.first?.object?["expression"] == "$a$")
    #expect(rule.definition["n"] == [1, nil, 2])
    #expect(rule.definition["q"] == "it's")
    #expect(rule.definition["none"] == nil)
  }

  @Test func consoleJSONTheRealServerRefusesIsStillRefused() throws {
    for body in [
      #"{"data": [1,}"#, #"{"a": 1, "a": 2}"#, #"{"a": "x\qy"}"#, "[1]", #"{"a": }"#, "{'a': 'b",
    ] {
      let file = try SkillParser.parse("bad\n!console:x\n\(body)\neol\n\nok\nyes\n")
      #expect(file.intents.count == 1, "\(body)")
      #expect(file.warnings.contains { $0.message.contains("does not parse") }, "\(body)")
    }
  }

  @Test func javascriptRulesAreReadWithTheirAnswer() throws {
    let file = try SkillParser.parse("random\n!javascript:$!$\nMath.random();\neol\n\nok\nyes\n")
    #expect(file.intents.count == 2)
    guard case .javascript(let script, _) = file.intents.first?.rule else {
      Issue.record("expected a javascript rule")
      return
    }
    #expect(script == "Math.random();")
    #expect(answers(file.intents.first) == [["$!$"]])
  }

  @Test func readsPlans() throws {
    let file = try SkillParser.parse("timer *\n!plan $1$s:done\nset\n")
    #expect(file.intents.first?.plans.first?.delay == "$1$s")
    #expect(file.intents.first?.plans.first?.template == "done")
  }

  @Test func intentWithoutAnswerIsDroppedWithAWarning() throws {
    let file = try SkillParser.parse("lonely pattern\n!example:lonely pattern\n\nok\nyes\n")
    #expect(file.intents.count == 1)
    #expect(file.warnings.contains { $0.message.contains("no answer") })
  }

  @Test func rejectsBinaryJunk() {
    #expect(throws: SkillParseError.self) {
      try SkillParser.parse([0x89, 0x50, 0x4E, 0x47, 0x00, 0x0D, 0x0A])
    }
    #expect(throws: SkillParseError.self) { try SkillParser.parse([0x68, 0x69, 0xFF, 0xFE]) }
  }

  @Test func survivesRandomBytesWithoutTrapping() {
    var random = SeededRandom(seed: 7)
    for _ in 0..<300 {
      let length = Int.random(in: 0..<200, using: &random)
      let alphabet = Array("ab *|!:$\\#\r\n\t{}[]\"eol:console:plan example".utf8)
      let bytes = (0..<length).map { _ in
        alphabet[Int.random(in: 0..<alphabet.count, using: &random)]
      }
      _ = try? SkillParser.parse(bytes)
    }
  }

  @Test func libraryReportsUnreadableFilesAndKeepsTheRest() throws {
    let root = try dataDirectory(["Knowledge/en/good": "hello\nhi\n"])
    let junk = root.appendingPathComponent("models/general/Knowledge/en/junk.txt")
    try Data([0x00, 0x01, 0xFF]).write(to: junk)
    let library = SkillLibrary.load(from: root)
    #expect(library.skills.map(\.tag) == ["good"])
    #expect(library.warnings.contains { $0.contains("junk.txt") && $0.contains("skipped") })
  }
}
