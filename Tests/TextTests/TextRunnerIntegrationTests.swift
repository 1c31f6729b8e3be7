import Foundation
import SusiClock
import SusiCore
import SusiRunner
import SusiStore
import SusiTesting
import Testing

@testable import SusiText

/// Text sessions against the real effects runner and the real embedded-server logic, joined
/// in-process (no sockets): what a person sees for real answers.
@Suite struct TextRunnerIntegrationTests {
  struct Harness {
    let folder = FileManagerTestFolder()
    let capture = TextCapture()
    let store: Store
    let session: TextSession

    init(lines: [String] = [], mode: TextSession.Mode = .shell) async throws {
      var configuration = RunnerConfiguration(
        stateDirectory: folder.path, embeddedServerURL: TextInProcessServer.baseURL,
        websearchURL: TextInProcessServer.baseURL + "/duckduckgo/")
      configuration.transport = try TextInProcessServer(
        stateDirectory: URL(fileURLWithPath: folder.path + "/server"))
      configuration.machineLanguage = "en"
      configuration.timezoneOffsetMinutes = 0
      // A clock that only moves when told: no timeout or retry can fire on a busy machine.
      configuration.clock = ManualTimeSource()
      store = Store(
        sink: MemoryEventSink(), runner: SusiRunner(configuration: configuration),
        clock: ManualTimeSource())
      let context = TextContext(logPath: folder.path + "/events.jsonl", terminate: { _ in })
      session = await TextSession(
        store: store, console: capture.console(), input: TextScriptedLines(lines), context: context,
        mode: mode)
    }
  }

  @Test func answersOfEveryKindAreRendered() async throws {
    let h = try await Harness()
    for query in [
      "what is the capital of France", "show me the league table", "world population by continent",
      "where is Berlin", "show me the news", "play a video", "set volume to 40", "stop",
      "show me a painting",
    ] {
      #expect(await h.session.run(.init("ask", query)) == .ok, "\(query): \(h.capture.error)")
    }
    let output = h.capture.output
    #expect(output.contains("The capital of France is Paris."))
    #expect(output.contains("Team       Played  Points"))
    #expect(output.contains("Asia "))
    #expect(output.contains("59.4%"))
    #expect(
      output.contains("https://www.openstreetmap.org/?mlat=52.52&mlon=13.405#map=13/52.52/13.405"))
    #expect(output.contains("1. Local assistant answers without a network"))
    #expect(output.contains("Video: https://www.youtube.com/watch?v=aqz-KE-bpKQ"))
    #expect(output.contains("[volume 40%]"))
    #expect(output.contains("[stop]"))
    #expect(output.contains("Image: http://127.0.0.1/cms/getImage.png?model=general"))
    #expect(h.capture.error == "")
  }

  @Test func webSearchAnswersRunTheSearch() async throws {
    let h = try await Harness()
    #expect(await h.session.run(.init("ask", "search for susi")) == .ok, "\(h.capture.error)")
    #expect(h.capture.output.contains("Web search: susi\n1. "), "\(h.capture.output)")
  }

  @Test func skillsRatingsAndSettingsAgainstTheServer() async throws {
    let password = "Secret-Passw0rd!"
    let h = try await Harness(lines: [password, password])
    #expect(await h.session.run(.init("groups")) == .ok)
    #expect(h.capture.output.contains("Knowledge\n"))
    #expect(await h.session.run(.init("skills", "knowledge")) == .ok)
    #expect(h.capture.output.contains("Knowledge ("))
    #expect(await h.session.run(.init("skill", "capitals")) == .ok, "\(h.capture.error)")
    #expect(h.capture.output.contains("Capitals\nKnowledge · en · by Chen Wu"))
    #expect(await h.session.run(.init("signup", "me@example.org")) == .ok, "\(h.capture.error)")
    #expect(await h.session.run(.init("login", "me@example.org")) == .ok, "\(h.capture.error)")
    #expect(await h.session.run(.init("rate", "Capitals", stars: 4)) == .ok, "\(h.capture.error)")
    #expect(h.capture.output.contains("You rated Capitals ★★★★☆ 4.\nNow: ★★★★☆ 4.0 (1 rating)\n"))
    #expect(await h.session.run(.init("myrating", "capitals")) == .ok, "\(h.capture.error)")
    #expect(h.capture.output.hasSuffix("Your rating of Capitals: ★★★★☆ 4\n"))
    #expect(await h.session.run(.init("set", "dark", key: "theme")) == .ok, "\(h.capture.error)")
    #expect(await h.session.run(.init("sync")) == .ok, "\(h.capture.error)")
    #expect(h.capture.output.hasSuffix("theme  dark\n"))
    #expect(await h.session.run(.init("ask", "how are you")) == .ok)
    #expect(await h.session.run(.init("history")) == .ok, "\(h.capture.error)")
    #expect(h.capture.output.contains("> how are you\nI'm fine, thanks for asking."))
    #expect(await h.session.run(.init("logout")) == .ok)
  }

  @Test func previewsAPageOfTheServer() async throws {
    let h = try await Harness()
    #expect(
      await h.session.run(.init("preview", TextInProcessServer.baseURL + "/pages/susi.html"))
        == .ok,
      "\(h.capture.error)")
    #expect(h.capture.output.hasSuffix("http://susi.test/pages/susi.html\n"), "\(h.capture.output)")
  }
}
