import Foundation
import SusiHTTPServer
import SusiJSON
import Testing

@testable import SusiServer

/// The skill language as the real server reads it, end to end through `/susi/chat.json`.
@Suite struct SkillLanguageTests {
  func ask(
    _ server: TestServer, _ query: String, _ extra: [(String, String)] = [],
    from address: String = "203.0.113.7"
  ) throws -> (answers: [String], skill: String, data: [JSON]) {
    let reply = try server.json(
      "/susi/chat.json", [("q", query)] + extra, remoteAddress: address)
    let answer = try #require(reply["answers"]?.array?.first?.object)
    let texts = (answer["actions"]?.array ?? []).compactMap { action -> String? in
      guard action["type"] == "answer" else { return nil }
      return action["expression"]?.string
    }
    return (
      texts, answer["skills"]?.array?.first?.string ?? "", answer["data"]?.array ?? []
    )
  }

  static let fallback = "I don't know the answer to that question."

  @Test func aLoneCatchAllOfACollectionNeverAnswersAStrangersQuestion() throws {
    let data = try dataDirectory([
      "Communication/en/anything": "*\nI answer everything.\n\nhello|*\nHello!\n",
      "Knowledge/en/capital": "capital of france\nParis\n",
    ])
    let server = try TestServer(dataDirectory: data)
    #expect(try ask(server, "what is the weather on mars").answers == [Self.fallback])
    #expect(try ask(server, "hello").answers == ["Hello!"])
    #expect(try ask(server, "capital of France?").answers == ["Paris"])
    let warnings = server.handler.loadWarnings
    #expect(warnings.contains { $0.contains("anything.txt: line 1:") && $0.contains("catch-all") })
  }

  @Test func focusSkillsAnswerOnlyWhenFocusedAndPersonasOnlyWhenChosen() throws {
    let data = try dataDirectory([
      "Communication/en/robot": "::on robot\n\nhello\nBeep. Hello, human.\n",
      "Communication/en/greet": "hello\nHi there.\n",
    ])
    let persona = data.appendingPathComponent("models/persona/Famous/en/Ada.txt")
    try FileManager.default.createDirectory(
      at: persona.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data("hello\nGood day, I am Ada.\n".utf8).write(to: persona)
    let server = try TestServer(dataDirectory: data)
    #expect(try ask(server, "hello").answers == ["Hi there."])
    #expect(try ask(server, "hello", [("focus", "robot")]).answers == ["Beep. Hello, human."])
    #expect(try ask(server, "hello", [("persona", "ada")]).answers == ["Good day, I am Ada."])
  }

  @Test func blocksReadLikeTheRealServer() throws {
    let data = try dataDirectory([
      "Knowledge/en/facts": """
      ::name Facts
      # a comment at column 0
      tell me a fact|give me a fact
      !example : tell me a fact
      !label:a:b
      Water boils at 100 degrees.
      It freezes at 0 degrees.

      long \\
      question
      short\\
      answer
      """
    ])
    let server = try TestServer(dataDirectory: data)
    #expect(
      try ask(server, "tell me a fact").answers == [
        "Water boils at 100 degrees.", "It freezes at 0 degrees.",
      ])
    #expect(try ask(server, "long question").answers == ["short answer"])
    let skill = try #require(server.handler.library.skills.first)
    #expect(skill.file.examples == ["tell me a fact"])
  }

  @Test func wildcardsInsideWordsOneWordCapturesAndRegularExpressions() throws {
    let data = try dataDirectory([
      "Knowledge/en/words": """
      who*
      A who-question: $1$

      my name is +
      Hello $1$.

      (?:colou?r) of (.*)
      The colour of $1$ is a secret.
      """
    ])
    let server = try TestServer(dataDirectory: data)
    #expect(try ask(server, "whoever you are").answers == ["A who-question: ever you are"])
    #expect(try ask(server, "My name is Ada").answers == ["Hello Ada."])
    #expect(try ask(server, "my name is Ada Stone").answers == [Self.fallback])
    #expect(try ask(server, "color of the sky").answers == ["The colour of the sky is a secret."])
    #expect(try ask(server, "colour of grass").answers == ["The colour of grass is a secret."])
  }

  @Test func theMatchingUtteranceRanksAndExactBeatsWildcard() throws {
    let data = try dataDirectory([
      "Communication/en/chatter": "hello *\nHello to you too.\n\nwhat can i *\nAnything.\n",
      "Food and Drink/en/menu": "what|what can i order\nPizza or pasta.\n",
      "Games, Trivia and Accessories/en/hal": "hello hal\nHello, Dave.\n",
    ])
    let server = try TestServer(dataDirectory: data)
    #expect(try ask(server, "Hello HAL").answers == ["Hello, Dave."])
    #expect(try ask(server, "hello world").answers == ["Hello to you too."])
    #expect(try ask(server, "What can I order?").answers == ["Pizza or pasta."])
    #expect(try ask(server, "what can i eat").answers == ["Anything."])
  }

  @Test func assignmentsAreRememberedPerUserAndNeverShown() throws {
    let data = try dataDirectory([
      "Interests/en/memory": """
      my favourite colour is *
      I will remember that $1$>_colour is your favourite.

      call me *
      Fine.^$1$^>_nickname

      what is my favourite colour
      ?$_colour$:Your favourite colour is $_colour$.:You have not told me yet.

      what do you call me
      You are $_nickname$.
      """
    ])
    let state = try temporaryDirectory()
    let server = try TestServer(stateDirectory: state, dataDirectory: data)
    #expect(try ask(server, "what is my favourite colour").answers == ["You have not told me yet."])
    #expect(try ask(server, "what do you call me").answers == [Self.fallback])
    let told = try ask(server, "my favourite colour is green")
    #expect(told.answers == ["I will remember that green is your favourite."])
    #expect(told.data.first?["_colour"] == "green")
    #expect(try ask(server, "call me Ada").answers == ["Fine."])
    #expect(
      try ask(server, "What is my favourite colour?").answers == ["Your favourite colour is green."]
    )
    #expect(try ask(server, "what do you call me").answers == ["You are Ada."])
    // Another user has told nothing.
    #expect(
      try ask(server, "what is my favourite colour", from: "198.51.100.9").answers == [
        "You have not told me yet."
      ])
    // Remembered across a restart (the chat memory is saved in the state directory).
    let restarted = try TestServer(stateDirectory: state, dataDirectory: data)
    #expect(
      try ask(restarted, "what is my favourite colour").answers == [
        "Your favourite colour is green."
      ])
  }

  @Test func conditionsCompareValues() throws {
    let data = try dataDirectory([
      "Games, Trivia and Accessories/en/quiz": """
      quiz
      What is the capital of Peru?^lima^>_answer

      it is *
      ?$_answer$=$1$:Correct!:No, it is $_answer$.
      """
    ])
    let server = try TestServer(dataDirectory: data)
    #expect(try ask(server, "quiz").answers == ["What is the capital of Peru?"])
    #expect(try ask(server, "it is Lima").answers == ["Correct!"])
    #expect(try ask(server, "it is Cusco").answers == ["No, it is lima."])
  }

  @Test func reflectionsAskTheMindAgainWithADepthLimit() throws {
    let data = try dataDirectory([
      "Knowledge/en/reflect": """
      capital of peru
      Lima

      where is the government of peru
      In `capital of peru`, I believe.

      loop
      Round and `loop`

      ask nobody
      They said `no skill knows this`.
      """
    ])
    let server = try TestServer(dataDirectory: data)
    #expect(try ask(server, "where is the government of peru").answers == ["In Lima, I believe."])
    #expect(try ask(server, "loop").answers == [Self.fallback])
    #expect(try ask(server, "ask nobody").answers == [Self.fallback])
  }

  @Test func unboundVariablesPassTheIntentOverForTheNext() throws {
    let data = try dataDirectory([
      "Knowledge/en/pass": "hello there\nHi $_name$!\n\nhello *\nHello, stranger.\n"
    ])
    let server = try TestServer(dataDirectory: data)
    #expect(try ask(server, "hello there").answers == ["Hello, stranger."])
  }

  struct FakeProcedures: SkillProcedures {
    func console(_ rule: ConsoleRule, bindings: SkillBindings, place: String) -> [JSON]? {
      guard let url = rule.url, let filled = bindings.fill(url, urlEncoded: true) else {
        return nil
      }
      return [["url": .string(filled), "temp": "21"]]
    }
    func javascript(_ script: String, bindings: SkillBindings, place: String) -> String? {
      script == "1 + $1$".replacingOccurrences(of: "$1$", with: "41") ? "42" : nil
    }
  }

  @Test func consoleURLAndJavascriptRulesGoThroughTheProcedures() throws {
    let skill = """
      weather in *
      !console:It is $temp$ degrees in $1$ ($url$).
      {"url": "https://weather.example/?q=$1$", "path": "$.now"}
      eol

      weather in *|weather
      Weather is fine somewhere.

      add one to *
      !javascript:The sum is $!$.
      1 + $1$
      eol
      """
    let data = try dataDirectory(["Weather/en/weather": skill])
    let offline = try TestServer(dataDirectory: data) { $0.procedures = OfflineSkillProcedures() }
    #expect(try ask(offline, "weather in New York").answers == ["Weather is fine somewhere."])
    #expect(try ask(offline, "add one to 41").answers == [Self.fallback])
    let online = try TestServer(dataDirectory: data) { $0.procedures = FakeProcedures() }
    #expect(
      try ask(online, "weather in New York").answers == [
        "It is 21 degrees in New York (https://weather.example/?q=New%20York)."
      ])
    #expect(try ask(online, "add one to 41").answers == ["The sum is 42."])
  }

  /// With no procedures configured, the chat runs console rules against the network (here a
  /// loopback API, which the server must be allowed to reach) and javascript rules in the
  /// sandboxed engine.
  @Test func theChatRunsConsoleAndJavascriptRulesForReal() async throws {
    let api = try FixtureAPI([
      "/weather": FixtureAPI.json(#"{"now": {"temp": 21, "city": "Paris"}}"#)
    ])
    defer { Task { await api.server.shutdown() } }
    let skill = """
      weather in *
      !console:It is $temp$ degrees in $city$.
      {"url": "\(api.base)/weather?q=$1$", "path": "$.now"}
      eol

      add one to *
      !javascript:The sum is $!$.
      1 + $1$
      eol
      """
    let data = try dataDirectory(["Weather/en/weather": skill])
    let server = try TestServer(dataDirectory: data) { $0.allowsPrivateConsoleHosts = true }
    #expect(try ask(server, "weather in paris").answers == ["It is 21 degrees in Paris."])
    #expect(api.seen.last?.target == "/weather?q=paris")
    #expect(try ask(server, "add one to 41").answers == ["The sum is 42."])
    // An API that cannot be reached passes the intent over: the fallback answers.
    await api.server.shutdown()
    let unreachable = try TestServer(dataDirectory: data) { $0.allowsPrivateConsoleHosts = true }
    #expect(try ask(unreachable, "weather in rome").answers == [Self.fallback])
  }

  @Test func theCheckCountsExamplesAnsweredByTheirOwnSkill() throws {
    let data = try dataDirectory([
      "Knowledge/en/good": "capital of peru\n!example:capital of Peru?\nLima\n",
      "Knowledge/en/shadowed": "peru capital|capital of peru\n!example:capital of peru\nLima!\n",
      "Knowledge/en/online": """
      news
      !example:news
      !console:$title$
      {"url": "https://news.example/", "path": "$.items"}
      eol
      """,
    ])
    let check = SkillCheck.run(dataDirectory: data)
    #expect(check.outcomes.count == 3)
    #expect(check.ownCount == 1)
    #expect(check.outcomes.first { $0.skill.hasSuffix("online.txt") }?.obstacle == .network)
    #expect(check.answerable.count == 2)
    #expect(check.summary.contains("1 of 3 examples"))
    // The same utterance in two skills: one of the two must answer, and the check says so.
    let shadowed = try #require(check.outcomes.first { $0.skill.hasSuffix("shadowed.txt") })
    #expect(shadowed.tied && !shadowed.isOwn)
    #expect(check.summary.contains("1 of the other 1 tie with the skill that answered"))
    // Ranked by each intent's shortest utterance, as the real server ranks, `peru capital`
    // puts the shadowed skill's intent behind the other's.
    #expect(shadowed.realServer == .other)
    #expect(check.outcomes.first { $0.skill.hasSuffix("good.txt") }?.realServer == .own)
    #expect(check.realServerSummary.contains("of the 2, 1 answered by their own skill, 0 tie"))
    // The report lists the examples their own skill missed (all of them when asked), then the
    // summaries.
    let report = check.report(listingExamples: false)
    #expect(report.contains("TIE ") && report.contains("SKIP") && !report.contains("ok  "))
    #expect(report.contains("(as the real server ranks: another skill first)"))
    #expect(report.hasSuffix(check.timing + "\n") && report.contains(check.summary + "\n"))
    #expect(check.report(listingExamples: true).contains("ok  "))
  }

  @Test func theCheckRunsJavaScriptAndSaysWhereTheRealServersOrderDiffers() throws {
    let data = try dataDirectory([
      "Knowledge/en/greet": "hello *\n!example:hello world\nHello to $1$!\n",
      "Knowledge/en/hal": "hello hal\n!example:hello hal\nI am HAL.\n",
      "Knowledge/en/sum": "add * and *\n!example:add 2 and 3\n!javascript:$!$\n$1$ + $2$\neol\n",
      "Knowledge/en/zone":
        "my offset\n!example:my offset\n!javascript:$!$\n$timezoneOffset$ + 1\neol\n",
    ])
    let check = SkillCheck.run(dataDirectory: data)
    #expect(check.outcomes.allSatisfy { $0.isOwn })
    #expect(check.outcomes.first { $0.skill.hasSuffix("sum.txt") }?.answer == "5")
    // Asked as a client at UTC asks: `timezoneOffset` is 0.
    #expect(check.outcomes.first { $0.skill.hasSuffix("zone.txt") }?.answer == "1")
    // The real server ranks `hello (.*)` (ten characters) before `hello hal` (nine).
    #expect(check.outcomes.first { $0.skill.hasSuffix("hal.txt") }?.realServer == .other)
    #expect(check.outcomes.first { $0.skill.hasSuffix("greet.txt") }?.realServer == .own)
  }

  @Test func firstKeepsTheMatchAndRestDropsItAsOnTheRealServer() throws {
    let data = try dataDirectory([
      "Knowledge/en/flow": """
      echo *
      !first:
      You said $1$.

      forget *
      !rest:
      I forgot it.

      lose *
      !rest:
      You said $1$.
      """
    ])
    let server = try TestServer(dataDirectory: data)
    #expect(try ask(server, "echo hi").answers == ["You said hi."])
    let forgot = try ask(server, "forget this")
    #expect(forgot.answers == ["I forgot it."])
    #expect(!forgot.data.contains { $0.object?["1"] != nil })
    // A new user: remembered rows of earlier answers are searched too (as on the real server),
    // so the first user's `$1$` from `echo hi` would fill it.
    #expect(try ask(server, "lose this", from: "203.0.113.9").answers == [Self.fallback])
    #expect(try ask(server, "lose this").answers == ["You said hi."])
  }

  @Test func theSkillFolderIsRememberedUntilBundledIsChosen() throws {
    let state = try temporaryDirectory().appendingPathComponent("server")
    let skills = try dataDirectory(["Knowledge/en/a": "hi\nhello\n"])
    #expect(try SkillFolderChoice.resolve(requested: nil, serverStateDirectory: state) == nil)
    let chosen = try SkillFolderChoice.resolve(requested: skills.path, serverStateDirectory: state)
    #expect(chosen?.path == skills.standardizedFileURL.path)
    #expect(try SkillFolderChoice.resolve(requested: nil, serverStateDirectory: state) == chosen)
    let empty = try temporaryDirectory()
    #expect(throws: SkillFolderChoice.Problem.self) {
      try SkillFolderChoice.resolve(requested: empty.path, serverStateDirectory: state)
    }
    #expect(try SkillFolderChoice.resolve(requested: nil, serverStateDirectory: state) == chosen)
    #expect(try SkillFolderChoice.resolve(requested: "bundled", serverStateDirectory: state) == nil)
    #expect(try SkillFolderChoice.resolve(requested: nil, serverStateDirectory: state) == nil)
  }
}
