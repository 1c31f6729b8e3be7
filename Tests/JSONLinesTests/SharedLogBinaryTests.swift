import Foundation
import SusiCore
import SusiHTTPTesting
import SusiJSON
import SusiTesting
import Testing

/// Several `susi` processes on one log: a long-running `susi jsonl` (as a chat would be) beside
/// one-shot commands, read-only ones and administration, all on the default log of one state dir.
@Suite struct SharedLogBinaryTests {
  @Test func oneShotCommandsRunBesideALongRunningSusiAndItSeesTheirEvents() async throws {
    let folder = try JSONLBinary.freshFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let running = try JSONLProcess([], folder: folder)
    // Once it has answered, it holds the log and its built-in server is up.
    running.send(#"{"type":"loadGroups","payload":{},"id":"g"}"#)
    _ = try await running.lines { $0["cause"] != nil }

    let common = ["--state-dir", folder, "--fsync", "never"]
    let asked = try await JSONLBinary.run(["ask"] + common + ["hi"])
    #expect(asked.status == 0, "susi ask beside a running susi: \(asked.output)")
    #expect(!asked.output.isEmpty)

    // The running process shows what the other one logged: its question and the answer.
    let seen = try await running.lines { $0["type"] == "messageReceived" }
    let question = try #require(seen.first { $0["type"] == "sendMessage" })
    #expect(question["origin"] == "cli")
    #expect(seen.last?["cause"] == question["seq"])

    let skills = try await JSONLBinary.run(["skills"] + common)
    #expect(skills.status == 0, "susi skills: \(skills.output)")
    let log = folder + "/events.jsonl"
    let before = try Data(contentsOf: URL(fileURLWithPath: log))
    let keys = try await JSONLBinary.run(
      ["serve", "keys", "list"] + common)
    #expect(keys.status == 0, "susi serve keys list: \(keys.output)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: log)) == before, "a listing appends nothing")
    let replay = try await JSONLBinary.run(["replay", folder + "/events.jsonl"])
    #expect(replay.status == 0, "susi replay: \(replay.output)")

    // The running one goes on appending after the others: seqs stay contiguous.
    running.send(#"{"type":"loadGroups","payload":{},"id":"g2"}"#)
    let later = try await running.lines { $0["id"] == "g2" && $0["cause"] != nil }
    running.closeInput()
    #expect(await running.exitStatus() == 0)
    let verified = try await JSONLBinary.run(["replay", "--verify", folder + "/events.jsonl"])
    #expect(verified.status == 0, "the shared log replays cleanly: \(verified.output)")
    #expect(later.last?["seq"]?.int ?? 0 > question["seq"]?.int ?? 0)
  }

  @Test func historyAfterAskShowsTheChatFromTheBuiltInServersSavedMemory() async throws {
    let folder = try JSONLBinary.freshFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let common = ["--state-dir", folder, "--fsync", "never"]
    let asked = try await JSONLBinary.run(["ask"] + common + ["hello"])
    #expect(asked.status == 0)
    // A new process, a new built-in server: the memory comes from the state directory.
    let history = try await JSONLBinary.run(["history"] + common)
    #expect(history.status == 0)
    #expect(history.output.contains("> hello"), "susi history: \(history.output)")
  }

  @Test func aRunningChatShowsWhatASusiAskInAnotherTerminalAdded() async throws {
    let folder = try JSONLBinary.freshFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let chat = try SusiBinary.built().start(
      ["--state-dir", folder, "--fsync", "never"],
      environment: SusiBinary.isolatedEnvironment(folder))
    defer { chat.stop() }
    chat.send("hello\n")
    // Answered: the chat holds the log and its built-in server is up.
    #expect(await onThread { chat.waitFor { $0.output.contains("\n") } })
    let asked = try await JSONLBinary.run(
      ["ask", "--state-dir", folder, "--fsync", "never", "what is your name"])
    #expect(asked.status == 0)
    let answer = asked.output.split(separator: "\n").first.map(String.init) ?? "?"
    let shown = await onThread {
      chat.waitFor {
        $0.errors.contains("Asked in another susi: what is your name")
          && $0.output.contains(answer)
      }
    }
    #expect(shown, "chat output: \(chat.seen)")
    chat.send("/quit\n")
    chat.closeInput()
    #expect(await onThread { chat.waitForExit().status } == 0)
  }
}
