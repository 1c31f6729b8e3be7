import Foundation
import SusiTesting
import Testing

/// Every shell example in README.md that runs `susi` is run as written — through `/bin/sh`, with
/// the built `susi` first on `PATH`, against the built-in server, in a fresh state folder — in
/// the order the README gives them, and must exit 0. The few that cannot run here are listed in
/// `skipped`, each with its reason; a README line that matches no example and no skip fails the
/// test, so a new example is tested from the day it is written.
@Suite
struct ReadmeExamplesTests {
  /// Examples that cannot run offline or in a test, by their text up to the first `#`.
  static let skipped: [String: String] = [
    "susi jsonl [--replay-first] [--no-wait] [--drain-timeout SECONDS] [--allow-admin] [common options]":
      "a synopsis, not a command",
    "susi serve --port 8080": "runs until stopped; WebhookServeCommandTests start it",
    "susi serve keys revoke key_1f0c…": "key_1f0c… stands for a key id that the run prints",
    "susi server --port 4000 &":
      "runs until stopped on a fixed port; ServerForegroundTests start it on a free port",
    "susi web": "runs until stopped; WebServerBinaryTests start it on a free port",
    "susi web --port 8080 --open":
      "runs until stopped on a fixed port and opens a browser; WebServerBinaryTests start it",
    "susi --server http://127.0.0.1:4000 ask hello": "needs the server of the line before",
    "susi server use https://susi.internal.example && susi --ca-file ~/my-ca.pem ask hello":
      "needs a server with a private CA; TLSBinaryTests run it against one",
    "susi server --host 0.0.0.0 --port 8443 --tls-cert fullchain.pem --tls-key privkey.pem":
      "runs until stopped, on every address; TLSServingTests start it on loopback",
    "susi serve --port 8443 --tls-cert fullchain.pem --tls-key privkey.pem":
      "runs until stopped on a fixed port with a real certificate",
    "susi uninstall":
      "removes an installation; ToolCommandsTests install and uninstall under a temporary prefix",
    "susi --skills ~/susi_skill_data":
      "needs the public skill collection, cloned from the internet in the line before",
    "susi serve keys init --state-dir ~/node1":
      "needs the PostgreSQL of the lines before; PostgresServeNodesTests run two nodes",
    "susi serve --state-dir ~/node1 --port 8081 &":
      "needs PostgreSQL, runs until stopped; PostgresServeNodesTests run two nodes",
    "susi serve --state-dir ~/node2 --port 8082 &":
      "needs PostgreSQL, runs until stopped; PostgresServeNodesTests run two nodes",
    #"susi log copy ~/.local/state/susi/events.jsonl "$SUSI_LOG""#:
      "needs PostgreSQL; PostgresCommandTests copy both ways",
    #"susi log copy "$SUSI_LOG" backup.jsonl"#:
      "needs PostgreSQL; PostgresCommandTests copy both ways",
  ]

  /// The example commands of README.md, in order: lines of fenced blocks whose first word is
  /// `susi` (after a `$ ` prompt), or that pipe into or follow into `susi`; continuation lines
  /// (ending in `\`) are joined.
  static func examples(in readme: String) -> [String] {
    var commands: [String] = []
    var inBlock = false
    var pending = ""
    for raw in readme.split(separator: "\n", omittingEmptySubsequences: false) {
      let line = String(raw)
      if line.hasPrefix("```") {
        inBlock.toggle()
        pending = ""
        continue
      }
      guard inBlock else { continue }
      var text = pending + line
      if text.hasSuffix("\\") {
        text.removeLast()
        pending = text + " "
        continue
      }
      pending = ""
      if text.hasPrefix("$ ") { text.removeFirst(2) }
      let words = text.split(separator: " ")
      guard let first = words.first else { continue }
      let invokesSusi =
        first == "susi"
        || (["echo", "printf", "export"].contains(first)
          && (text.contains("| susi") || text.contains("; susi")))
      if invokesSusi { commands.append(text) }
    }
    return commands
  }

  static var readme: String {
    get throws {
      let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
      return try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    }
  }

  /// The text of an example up to its comment, as `skipped` names it.
  static func key(_ command: String) -> String {
    let comment = command.range(of: " #")?.lowerBound ?? command.endIndex
    return command[..<comment].trimmingCharacters(in: .whitespaces)
  }

  @Test func findsTheExamples() throws {
    let examples = Self.examples(in: try Self.readme)
    #expect(examples.count >= 20)
    #expect(examples.contains("susi"))
    #expect(examples.contains { $0.hasPrefix("printf '%s\\n'") && $0.contains("| susi jsonl") })
    for skip in Self.skipped.keys {
      #expect(examples.map(Self.key).contains(skip), "skipped but not in README: \(skip)")
    }
  }

  @Test func everyExampleRunsAsWritten() async throws {
    let susi = try SusiBinary.built()
    let folder = FileManagerTestFolder()
    defer { try? FileManager.default.removeItem(atPath: folder.path) }
    let state = folder.path + "/state"
    // The input file one example reads.
    _ = try folder.write("my-actions.jsonl", #"{"type":"loadGroups"}"# + "\n")
    var environment = SusiBinary.isolatedEnvironment(folder.path, ["SUSI_STATE_DIR": state])
    let binFolder = (susi.path as NSString).deletingLastPathComponent
    environment["PATH"] = binFolder + ":/usr/bin:/bin"
    let shell = SusiBinary(path: "/bin/sh")
    var ran = 0
    for example in Self.examples(in: try Self.readme) {
      if Self.skipped[Self.key(example)] != nil { continue }
      // `LOG` stands for a log file: the one the examples before have written.
      let command = example.replacingOccurrences(of: " LOG", with: " \(state)/events.jsonl")
      let run = try await shell.run(
        ["-c", "cd '\(folder.path)' && \(command)"], environment: environment)
      #expect(
        run.status == 0,
        "README example exited \(run.status): \(example)\nstdout: \(run.stdout.prefix(600))\nstderr: \(run.stderr.prefix(600))"
      )
      ran += 1
    }
    #expect(ran >= 15)
  }
}
