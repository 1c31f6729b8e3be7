import Foundation
import SusiApplication
import SusiCommandLine
import SusiCore
import SusiCoreTesting
import SusiHTTPTesting
import SusiStore
import Testing

/// The bootstrap every frontend uses: log, replay, built-in server, runner, store.
@Suite struct AppBootstrapTests {
  private func options(in folder: String) -> CommonOptions {
    CommonOptions(
      server: nil, log: folder + "/events.jsonl", websearchURL: nil, stateDirectory: folder,
      fsync: "never")
  }

  private func freshFolder() throws -> String {
    let folder = TestScratch.root.appendingPathComponent(
      "susi-app-\(UUID().uuidString)"
    ).path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    return folder
  }

  @Test func talksToTheBuiltInServerAndResumesFromTheLog() async throws {
    let folder = try freshFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }

    let app = try await SusiApp.start(options(in: folder), origin: .test)
    let groups = try await app.sendAndWait(.loadGroups(.init()), origin: .test)
    guard case .groupsLoaded(let loaded)? = groups.last?.event.action else {
      Issue.record("expected groupsLoaded, got \(groups.map(\.event.action.type))")
      await app.stop()
      return
    }
    #expect(loaded.groups.contains("Games, Trivia and Accessories"))
    let skills = try await app.sendAndWait(.loadSkills(.init()), origin: .test)
    #expect(skills.last?.event.action.type == .skillsLoaded)
    let chat = try await app.sendAndWait(.sendMessage(.init(query: "flip a coin")), origin: .test)
    #expect(chat.last?.event.action.type == .messageReceived)
    let before = await app.store.state
    let lastSeq = await app.store.lastSeq
    await app.stop()

    // A second start replays the log to the same state and carries on from the next seq.
    let again = try await SusiApp.start(options(in: folder), origin: .test)
    #expect(again.resumedEvents == lastSeq)
    #expect(await again.store.state == before)
    let next = try await again.store.send(.loadGroups(.init()), origin: .test)
    #expect(next.seq == lastSeq + 1)
    await again.stop()
  }

  @Test func aSecondStartOnTheSameLogSharesIt() async throws {
    let folder = try freshFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let first = try await SusiApp.start(options(in: folder), origin: .test, startEmbedded: false)
    let second = try await SusiApp.start(options(in: folder), origin: .test, startEmbedded: false)
    // Each waits for its result, which its own runner logs whenever it comes.
    let one = try await first.sendAndWait(
      .loadGroups(.init()), origin: EventOrigin(rawValue: "first"))
    let two = try await second.sendAndWait(
      .loadGroups(.init()), origin: EventOrigin(rawValue: "second"))
    #expect(
      two[0].seq > one[one.count - 1].seq, "the second appended after catching up on the first")
    await first.store.catchUp()
    #expect(await first.store.lastSeq == (await second.store.lastSeq))
    await first.stop()
    await second.stop()
  }
}
