import Foundation
import SusiCore
import SusiFiles
import SusiJSON
import SusiTesting
import Synchronization
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
    let chat = try WatchedProcess(
      [JSONLBinary.path, "--state-dir", folder, "--fsync", "never"],
      environment: TextBinary.environment(folder))
    chat.send("hello\n")
    // Answered: the chat holds the log and its built-in server is up.
    #expect(try await TextBinary.offPool { chat.waitFor { $0.output.contains("\n") } })
    let asked = try await JSONLBinary.run(
      ["ask", "--state-dir", folder, "--fsync", "never", "what is your name"])
    #expect(asked.status == 0)
    let answer = asked.output.split(separator: "\n").first.map(String.init) ?? "?"
    let shown = try await TextBinary.offPool {
      chat.waitFor {
        $0.errors.contains("Asked in another susi: what is your name")
          && $0.output.contains(answer)
      }
    }
    #expect(shown, "chat output: \(chat.seen)")
    chat.send("/quit\n")
    #expect(try await TextBinary.offPool { chat.exitStatus() } == 0)
  }
}

/// A process whose stdout and stderr are collected as they come, for tests that wait until
/// something appears (each wait has a deadline and blocks its thread: call it off the pool).
final class WatchedProcess: Sendable {
  struct Seen: Sendable {
    var output = ""
    var errors = ""
  }

  private let process = Process()
  private let input: FileHandle
  private let collected = Mutex(Seen())
  private let arrived = NSCondition()
  private let ended = DispatchSemaphore(value: 0)

  init(_ command: [String], environment: [String: String]) throws {
    process.executableURL = URL(fileURLWithPath: command[0])
    process.arguments = Array(command.dropFirst())
    process.environment = environment
    let stdin = Pipe()
    let stdout = Pipe()
    let stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    input = stdin.fileHandleForWriting
    let ended = ended
    process.terminationHandler = { _ in ended.signal() }
    try ProcessLaunch.run(process)
    collect(stdout.fileHandleForReading) { $0.output += $1 }
    collect(stderr.fileHandleForReading) { $0.errors += $1 }
  }

  private func collect(
    _ handle: FileHandle, _ add: @escaping @Sendable (inout Seen, String) -> Void
  ) {
    Thread { [self] in
      while true {
        let data = handle.readAvailable()
        if data.isEmpty { return }
        collected.withLock { add(&$0, String(decoding: data, as: UTF8.self)) }
        arrived.lock()
        arrived.broadcast()
        arrived.unlock()
      }
    }.start()
  }

  var seen: Seen { collected.withLock { $0 } }

  func send(_ text: String) { try? input.write(contentsOf: Data(text.utf8)) }

  /// Waits until `condition` holds for what was collected, at most `timeout` seconds.
  func waitFor(timeout: Double = 60, _ condition: (Seen) -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    arrived.lock()
    defer { arrived.unlock() }
    while !condition(seen) {
      if !arrived.wait(until: deadline) { return condition(seen) }
    }
    return true
  }

  /// Closes stdin and waits for the exit (killed after `timeout` seconds).
  func exitStatus(timeout: Double = 60) -> Int32 {
    try? input.close()
    if ended.wait(timeout: .now() + timeout) == .timedOut {
      process.terminate()
      ended.wait()
    }
    return process.terminationStatus
  }
}
