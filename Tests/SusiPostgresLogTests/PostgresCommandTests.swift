import Foundation
import SusiHTTPTesting
import SusiTesting
import Synchronization
import Testing

/// The built `susi` on a log in a real PostgreSQL: it appends there, `susi replay` reads it to
/// the same digest as a file copy of it, `susi log copy` copies both ways byte for byte and
/// resumes, and a password never shows.
@Suite(
  .enabled(
    if: PostgresCluster.program.testsShouldRun,
    Comment(rawValue: PostgresCluster.program.skipNote)))
struct PostgresCommandTests {
  let susi: SusiBinary
  let folder = FileManagerTestFolder()

  init() throws { susi = try SusiBinary.built() }

  private var environment: [String: String] {
    SusiBinary.isolatedEnvironment(folder.path, ["SUSI_EMBEDDED_PORT": "0"])
  }

  private func database(_ extra: String = "") throws -> String {
    let cluster = try PostgresCluster.shared()
    return cluster.uri(try cluster.database(), extra: extra)
  }

  /// Runs `susi jsonl` on `log` with `count` intents.
  private func appendIntents(_ count: Int, to log: String) async throws {
    let input = String(repeating: #"{"type":"loadGroups"}"# + "\n", count: count)
    let run = try await susi.run(
      ["jsonl", "--log", log, "--state-dir", folder.path + "/state"], input: input,
      environment: environment)
    #expect(run.status == 0, "\(run.stderr)")
  }

  private func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

  @Test func replayOfTheDatabaseLogGivesTheDigestOfItsFileCopy() async throws {
    let log = try database()
    try await appendIntents(3, to: log)
    let file = folder.path + "/copy.jsonl"
    let copied = try await susi.run(["log", "copy", log, file], environment: environment)
    #expect(copied.status == 0, "\(copied.stderr)")
    #expect(copied.stdout.contains("copied 6 events (seq 1…6)"))

    let fromDatabase = try await susi.run(["replay", log, "--digest"], environment: environment)
    let fromFile = try await susi.run(["replay", file, "--digest"], environment: environment)
    #expect(fromDatabase.status == 0, "\(fromDatabase.stderr)")
    #expect(fromDatabase.stdout.count == 65)
    #expect(fromDatabase.stdout == fromFile.stdout)
    let until = try await susi.run(
      ["replay", log, "--digest", "--until", "2"], environment: environment)
    let fileUntil = try await susi.run(
      ["replay", file, "--digest", "--until", "2"], environment: environment)
    #expect(until.stdout == fileUntil.stdout && until.stdout != fromDatabase.stdout)
    let verify = try await susi.run(["replay", log, "--verify"], environment: environment)
    #expect(verify.status == 0, "\(verify.stderr)")
    #expect(verify.stdout.hasPrefix("verified: 6 events"))
  }

  @Test func logCopyGoesBothWaysByteForByteAndResumes() async throws {
    let original = folder.path + "/events.jsonl"
    try await appendIntents(2, to: original)
    let log = try database("&log=copied")
    let there = try await susi.run(["log", "copy", original, log], environment: environment)
    #expect(there.status == 0, "\(there.stderr)")
    let back = folder.path + "/back.jsonl"
    let again = try await susi.run(["log", "copy", log, back], environment: environment)
    #expect(again.status == 0, "\(again.stderr)")
    #expect(bytes(back) == bytes(original))

    // The file grows; the next copy takes only what is new, and so does the one back.
    try await appendIntents(2, to: original)
    let more = try await susi.run(["log", "copy", original, log], environment: environment)
    #expect(more.stdout.contains("copied 4 events (seq 5…8)"), "\(more.stdout)\(more.stderr)")
    let nothing = try await susi.run(["log", "copy", original, log], environment: environment)
    #expect(nothing.stdout.contains("nothing to copy"))
    let moreBack = try await susi.run(["log", "copy", log, back], environment: environment)
    #expect(moreBack.stdout.contains("copied 4 events (seq 5…8)"))
    #expect(bytes(back) == bytes(original))

    // A different log is refused, and nothing is copied.
    let other = folder.path + "/other.jsonl"
    try await appendIntents(5, to: other)
    let refused = try await susi.run(["log", "copy", other, log], environment: environment)
    #expect(refused.status == 65)
    #expect(refused.stderr.contains("differ at seq 8"))
  }

  @Test func aPasswordNeverShowsInOutputOrErrors() async throws {
    let cluster = try PostgresCluster.shared()
    let withPassword = "postgresql://susi:hunter2@localhost/db?host=\(cluster.socketFolder)"
    for arguments in [
      ["ask", "hi", "--log", withPassword], ["replay", withPassword],
      ["log", "copy", withPassword, folder.path + "/x.jsonl"],
    ] {
      let run = try await susi.run(arguments, environment: environment)
      #expect(run.status == 64)
      #expect(run.stderr.contains("susi:***@localhost"))
      #expect(!(run.stdout + run.stderr).contains("hunter2"))
    }
    // A password given the right way (PGPASSWORD) is not shown either when the connection fails.
    var secret = environment
    secret["PGPASSWORD"] = "hunter2"
    let missing = try await susi.run(
      ["replay", cluster.uri("no_such_database")], environment: secret)
    #expect(missing.status == 69)
    #expect(missing.stderr.contains("no_such_database"))
    #expect(!(missing.stdout + missing.stderr).contains("hunter2"))
  }
}

/// Two `susi serve` nodes on one database log: an intent posted to one reaches an event stream
/// on the other, and both report the database in `/healthz`.
@Suite(
  .enabled(
    if: PostgresCluster.program.testsShouldRun,
    Comment(rawValue: PostgresCluster.program.skipNote)))
struct PostgresServeNodesTests {
  let susi: SusiBinary
  let folder = FileManagerTestFolder()

  init() throws { susi = try SusiBinary.built() }

  private var environment: [String: String] {
    SusiBinary.isolatedEnvironment(folder.path, ["SUSI_EMBEDDED_PORT": "0"])
  }

  private func startNode(_ arguments: [String]) async throws -> (SusiProcess, Int) {
    try await susi.startServeNode(arguments, environment: environment)
  }

  @Test func anIntentPostedToOneNodeReachesAStreamOnTheOther() async throws {
    let cluster = try PostgresCluster.shared()
    let log = cluster.uri(try cluster.database(), extra: "&log=nodes")
    let one = folder.path + "/one"
    let two = folder.path + "/two"
    let keys = try await susi.run(
      ["serve", "keys", "init", "--log", log, "--state-dir", one], environment: environment)
    #expect(keys.status == 0, "\(keys.stderr)")
    let key = keys.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    let (first, firstPort) = try await startNode(["--log", log, "--state-dir", one])
    defer { first.stop() }
    // The key hashes are in the database: the key made for node one is good on node two.
    let (second, secondPort) = try await startNode(["--log", log, "--state-dir", two])
    defer { second.stop() }

    let health = await onThread {
      try? LoopbackHTTPClient(port: secondPort).request("GET", "/healthz")
    }
    #expect(health?.status == 200)
    #expect(health?.text.contains(#""database":"ok""#) == true, "\(health?.text ?? "")")

    let streamed = await onThread { () -> String in
      guard let stream = try? LoopbackHTTPClient(port: secondPort, timeoutSeconds: 20) else {
        return ""
      }
      defer { stream.close() }
      try? stream.sendRequest(
        "GET", "/events/stream", headers: [("Authorization", "Bearer \(key)")])
      guard (try? stream.readHeadBlocking())?.status == 200 else { return "" }
      let poster = try? LoopbackHTTPClient(port: firstPort)
      defer { poster?.close() }
      let posted = try? poster?.request(
        "POST", "/actions",
        headers: [("Authorization", "Bearer \(key)"), ("Content-Type", "application/json")],
        body: #"{"type":"sendMessage","payload":{"query":"from node one"}}"#)
      guard posted?.status == 202 || posted?.status == 200 else {
        return "post failed: \(posted?.status ?? 0) \(posted?.text ?? "")"
      }
      var text = ""
      // Heartbeats keep the stream busy: give up after 20 s whatever arrives.
      let deadline = Date().addingTimeInterval(20)
      while !text.contains("from node one"), Date() < deadline,
        let chunk = try? stream.readChunkBlocking()
      {
        text += String(decoding: chunk, as: UTF8.self)
      }
      return text
    }
    // The event names the request that carried it to node one (`requestId`, as in its log line).
    #expect(streamed.contains(#""origin":"webhook","requestId":""#), "\(streamed)")
    #expect(
      streamed.contains(#","type":"sendMessage","payload":{"query":"from node one"}"#),
      "\(streamed)")
  }
}

/// A `susi serve` node on the database log killed with SIGKILL while clients post to it: what it
/// acknowledged is in the log, the log reads back and replays, its seqs have no gap, and another
/// node goes on appending after it.
@Suite(
  .enabled(
    if: PostgresCluster.program.testsShouldRun,
    Comment(rawValue: PostgresCluster.program.skipNote)))
struct PostgresKilledNodeTests {
  let susi: SusiBinary
  let folder = FileManagerTestFolder()

  init() throws { susi = try SusiBinary.built() }

  private var environment: [String: String] {
    SusiBinary.isolatedEnvironment(folder.path, ["SUSI_EMBEDDED_PORT": "0"])
  }

  private func startNode(_ arguments: [String]) async throws -> (SusiProcess, Int) {
    try await susi.startServeNode(arguments, environment: environment)
  }

  /// Posts `sendMessage` intents from `clients` connections until `stop` says so or a post
  /// fails; returns the acknowledged (seq, query) pairs.
  private func post(
    port: Int, key: String, clients: Int, stop: @escaping @Sendable (Int) -> Bool
  ) async -> [(seq: Int, query: String)] {
    let acknowledged = Acknowledged()
    await withTaskGroup(of: Void.self) { group in
      for client in 0..<clients {
        group.addTask {
          await onThread {
            guard let connection = try? LoopbackHTTPClient(port: port, timeoutSeconds: 20) else {
              return
            }
            defer { connection.close() }
            for n in 0..<10_000 {
              if stop(acknowledged.list.withLock { $0.count }) { return }
              let query = "client \(client) intent \(n)"
              guard
                let response = try? connection.request(
                  "POST", "/actions",
                  headers: [
                    ("Authorization", "Bearer \(key)"), ("Content-Type", "application/json"),
                  ],
                  body: #"{"type":"sendMessage","payload":{"query":"\#(query)"}}"#),
                response.status == 202,
                let seq = Self.seq(in: response.text)
              else { return }
              acknowledged.list.withLock { $0.append((seq, query)) }
            }
          }
        }
      }
    }
    return acknowledged.list.withLock { $0 }
  }

  /// The (seq, query) pairs acknowledged so far, shared by the posting threads.
  final class Acknowledged: Sendable {
    let list = Mutex<[(seq: Int, query: String)]>([])
  }

  /// The `seq` of a `{"seq":N}` answer.
  static func seq(in text: String) -> Int? {
    guard let range = text.range(of: #""seq":"#) else { return nil }
    return Int(text[range.upperBound...].prefix { $0.isNumber })
  }

  @Test func aNodeKilledDuringAppendsLosesNothingItAcknowledgedAndLeavesNoGap() async throws {
    let cluster = try PostgresCluster.shared()
    let log = cluster.uri(try cluster.database(), extra: "&log=killed")
    let state = folder.path + "/node"
    let keys = try await susi.run(
      ["serve", "keys", "init", "--log", log, "--state-dir", state], environment: environment)
    #expect(keys.status == 0, "\(keys.stderr)")
    let key = keys.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    let (node, port) = try await startNode(["--log", log, "--state-dir", state])
    let killed = Atomic<Bool>(false)
    // Once 40 intents are acknowledged the node is killed while its four clients keep posting.
    let acknowledged = await post(port: port, key: key, clients: 4) { count in
      if count >= 40, !killed.exchange(true, ordering: .acquiringAndReleasing) {
        node.signal(SIGKILL)
      }
      return false
    }
    let exit = await onThread { node.waitForExit(timeout: Double(hangLimitSeconds)) }
    #expect(exit.signalled, "the node was killed")
    #expect(acknowledged.count >= 40)

    // The log reads back and replays; seqs are gap-free (checked by the reader) and every
    // acknowledged intent is there, once, with what was posted.
    let copy = folder.path + "/copy.jsonl"
    let copied = try await susi.run(["log", "copy", log, copy], environment: environment)
    #expect(copied.status == 0, "\(copied.stderr)")
    let lines = try String(contentsOfFile: copy, encoding: .utf8).split(separator: "\n")
    for (index, line) in lines.enumerated() {
      #expect(line.hasPrefix(#"{"v":2,"seq":\#(index + 1),"#), "line \(index + 1): \(line)")
    }
    for ack in acknowledged {
      let line = ack.seq <= lines.count ? String(lines[ack.seq - 1]) : ""
      #expect(line.contains(#""query":"\#(ack.query)""#), "seq \(ack.seq): \(line)")
    }
    let verify = try await susi.run(["replay", log, "--verify"], environment: environment)
    #expect(verify.status == 0, "\(verify.stderr)")

    // The killed node's lock went with its connection: a new node appends right after.
    let (next, nextPort) = try await startNode(["--log", log, "--state-dir", state])
    defer { _ = next.stop() }
    let after = await post(port: nextPort, key: key, clients: 1) { $0 >= 1 }
    #expect(after.first.map(\.seq).map { $0 > lines.count } == true, "\(after)")
  }
}
