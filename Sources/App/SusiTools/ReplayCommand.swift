import Foundation
public import SusiCommandLine
public import SusiCore
import SusiCrypto
import SusiEventLog
import SusiFiles
import SusiJSON
import SusiPostgres
import SusiPostgresLog
import SusiStore

/// `susi replay LOG`: rebuilds the state from an event log, for debugging.
public enum ReplayCommand {
  public static let spec = CommandSpec(
    name: "replay", summary: "rebuild the state from an event log, step through it, verify it",
    usage:
      "replay [LOG] [--json] [--until SEQ] [--step [--from SEQ]] [--stats] [--verify] [--from-snapshot]",
    discussion: """
      Reads the log from the start and folds every event through the reducer, as susi did when
      the events happened, and prints the final state. LOG defaults to the log susi uses
      (--log, SUSI_LOG, or STATE-DIR/events.jsonl). The log is streamed: memory does not grow
      with its length. Nothing is sent anywhere; effects are not performed again.

      --step prints every event and what it changed in the state. --verify replays the log
      twice — once here, once in a fresh process with its own hashing seed — and compares the
      state digests; if they differ it names the first event after which they do. When a
      recorded state lies beside the log (LOG without .jsonl, plus .state.json, as in Events/),
      the replayed state must equal it too, and so must every snapshot beside the log (the state
      and bookkeeping a start resumes from) equal the full replay up to its seq. A damaged log is
      reported with its line number and replay stops there (exit 65).

      Replay reads the whole log unless --from-snapshot asks it to start from the newest snapshot
      that matches the log (as every start of susi does) and read only the events after it.
      """,
    examples: [
      "susi replay                                 the state of your own log",
      "susi replay Events/session.jsonl --step     every event and what it changed",
      "susi replay LOG --until 40 --json | jq .session",
      "susi replay LOG --verify",
    ],
    options: [
      OptionSpec(
        .json, help: "print JSON for programs (with --step: one JSON object per event)"),
      OptionSpec(.until, value: "SEQ", help: "stop after the event with this seq"),
      OptionSpec(.step, help: "print each event and what it changed"),
      OptionSpec(.from, value: "SEQ", help: "with --step: start printing at this seq"),
      OptionSpec(.stats, help: "print counts per type and the time span instead of the state"),
      OptionSpec(
        .verify, help: "replay twice (here and in a fresh process) and compare digests"),
      OptionSpec(.digest, help: "print only the SHA-256 digest of the final state"),
      OptionSpec(
        .fromSnapshot,
        help:
          "start from the newest snapshot of the log (beside it, or in its database), as a start of susi does"
      ),
      OptionSpec(.noSnapshot, help: "read the whole log (the default)"),
    ],
    arguments: 0...1
  )
  // It only reads a log: no server, no web, no writes.
  .refusing([
    .server, .websearchURL, .fsync, .allowPrivateTargets, .caFile,
  ])

  public static let command = Command(spec) { invocation in await run(invocation) }

  static func run(_ invocation: Invocation) async -> Int32 {
    let path = invocation.arguments.first ?? invocation.common.log
    let options = invocation.parsed
    var until: Int?
    var from: Int?
    for (name, value) in [
      (OptionName.until, options.value(.until)), (.from, options.value(.from)),
    ] {
      guard let value else { continue }
      guard let n = Int(value), n >= 0 else {
        return usage("\(name) takes a seq number, not '\(value)'")
      }
      if name == .until { until = n } else { from = n }
    }
    let log: ReplaySource
    if DatabaseReplay.isDatabase(path) {
      do { log = try DatabaseReplay.open(path) } catch {
        StandardStream.error.line("susi replay: \(error)")
        return error.kind == .invalidURI ? ExitCode.usage : ExitCode.unavailable
      }
    } else {
      guard FileManager.default.fileExists(atPath: path) else {
        StandardStream.error.line("susi replay: no log at \(path)")
        return ExitCode.noInput
      }
      log = .file(path)
    }
    let json = options.has(.json)
    let fromSnapshot = options.has(.fromSnapshot) && !options.has(.noSnapshot)
    if options.has(.stats) && !log.isFile { return usage("--stats reads log files only") }
    return reporting {
      if options.has(.verify) { return try verify(log, until: until) }
      if options.has(.stats) { return try stats(path: path, until: until, json: json) }
      if options.has(.step) { return try step(log, from: from ?? 0, until: until, json: json) }
      var recovered = Recovered()
      let torn = try replay(log, into: &recovered, until: until, fromSnapshot: fromSnapshot)
      warn(torn)
      return show(recovered, log: log.name, options)
    }
  }

  /// Prints the replayed state: its digest (`--digest`), its JSON (`--json`) or a report.
  static func show(_ recovered: Recovered, log: String, _ options: ParsedCommandLine) -> Int32 {
    if options.has(.digest) {
      StandardStream.output.line(digest(recovered.state))
    } else if options.has(.json) {
      StandardStream.output.write(recovered.state.canonicalJSON() + [0x0a])
    } else {
      StandardStream.output.write(StateReport.render(recovered, path: log))
    }
    return ExitCode.success
  }

  /// Runs `replay`, saying on stderr why it failed: a damaged log (exit 65) or one that could
  /// not be read (74).
  static func reporting(_ replay: () throws -> Int32) -> Int32 {
    do {
      return try replay()
    } catch {
      StandardStream.error.line("susi replay: \(error)")
      let corrupt: Bool
      switch error {
      case let failure as LogReplay.Failure: corrupt = failure.isCorruption
      case let failure as PostgresLogError: corrupt = failure.isCorruption
      default: return ExitCode.software
      }
      guard corrupt else { return ExitCode.ioError }
      StandardStream.error.line(
        "susi replay: the log is damaged at that record; nothing after it was applied")
      return ExitCode.dataError
    }
  }

  /// Replays the log, from the newest matching snapshot when asked (and when it lies before
  /// `until`); says on stderr which snapshot it started from, or why one was ignored.
  private static func replay(
    _ log: ReplaySource, into recovered: inout Recovered, until: Int?, fromSnapshot: Bool
  ) throws -> (any CustomStringConvertible)? {
    if fromSnapshot {
      let found = log.newestSnapshot()
      for warning in found.warnings {
        StandardStream.error.line("susi replay: warning: \(warning)")
      }
      if let snapshot = found.snapshot, snapshot.checkpoint.seq <= until ?? Int.max {
        StandardStream.error.line(
          "susi replay: started from the snapshot at seq \(snapshot.checkpoint.seq)")
        recovered = snapshot.recovered
        guard log.isFile else { return try log.fold(&recovered, until, nil) }
        return try LogReplay.run(
          path: log.path, into: &recovered, until: until, after: snapshot.checkpoint)
      }
    }
    return try log.fold(&recovered, until, nil)
  }

  /// Says that the log ends in a torn record: replay skips it, and the next start of susi cuts it
  /// off, so the user hears about that repair before it happens.
  static func warn(_ torn: (any CustomStringConvertible)?) {
    guard let torn else { return }
    StandardStream.error.line(
      "susi replay: warning: \(torn) (not applied; the next start of susi cuts it off)")
  }

  static func usage(_ message: String) -> Int32 {
    StandardStream.error.write("susi replay: \(message)\n\(HelpText.usageLine(spec))\n")
    return ExitCode.usage
  }

  /// The SHA-256 of the state's canonical JSON, in hex.
  public static func digest(_ state: State) -> String {
    ByteEncoding.hex(Digest.sha256(state.canonicalJSON()))
  }

  // MARK: --step

  /// Prints every event from `from` on as `log` folds it.
  private static func step(_ log: ReplaySource, from: Int, until: Int?, json: Bool) throws -> Int32
  {
    var recovered = Recovered()
    var before = recovered.state
    let torn = try log.fold(&recovered, until) {
      event, effects, after in
      // Keeping a copy costs a copy of the state on the next change, so only keep one when the
      // next event is to be shown.
      defer { if event.seq + 1 >= from { before = after } }
      guard event.seq >= from else { return }
      let changes = before.changes(to: after)
      if json {
        var w = JSONWriter()
        w.object { o in
          o.field("seq", event.seq)
          o.field("at", event.at.rfc3339)
          o.field("origin", event.origin.rawValue)
          o.field("requestId", event.origin.requestID)
          o.field("cause", event.cause)
          o.field("type", event.action.type.rawValue)
          o.field("changes") { w in
            w.array(changes) { w, change in w.object { change.write(to: &$0) } }
          }
          o.field("effects") { w in w.array(effects) { w, effect in w.string(effect.compactText) } }
        }
        StandardStream.output.write(w.bytes + [0x0a])
      } else {
        var text = "#\(event.seq) \(event.at.rfc3339) \(event.origin)"
        if let cause = event.cause { text += " ←#\(cause)" }
        text += " \(event.action.type) \(event.action.payloadJSON.compactText)\n"
        for change in changes { text += "    \(change)\n" }
        for effect in effects { text += "    ⇒ \(effect.compactText)\n" }
        if changes.isEmpty && effects.isEmpty { text += "    (no change)\n" }
        StandardStream.output.write(text)
      }
    }
    warn(torn)
    return ExitCode.success
  }

  // MARK: --stats

  private static func stats(path: String, until: Int?, json: Bool) throws -> Int32 {
    var recovered = Recovered()
    var counts: [String: Int] = [:]
    var origins: [String: Int] = [:]
    var first: Timestamp?
    var last: Timestamp?
    var total = 0
    let started = ContinuousClock.now
    let torn = try LogReplay.run(path: path, into: &recovered, until: until) { event, _, _ in
      counts[event.action.type.rawValue, default: 0] += 1
      origins[event.origin.rawValue, default: 0] += 1
      if first == nil { first = event.at }
      last = event.at
      total += 1
    }
    let elapsed = ContinuousClock.now - started
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    if json {
      var o = ObjectBuilder()
      o.set("events", total)
      o.set("lastSeq", recovered.lastSeq)
      o.set("first", first?.rfc3339)
      o.set("last", last?.rfc3339)
      o.set("bytes", bytes)
      o.set("tornTail", torn.map { "\($0)" })
      for (name, counted) in [("types", counts), ("origins", origins)] {
        o.set(
          name, JSON.object(JSONObject(counted.sorted { $0.key < $1.key }.map { ($0, .int($1)) })))
      }
      StandardStream.output.line(o.json.compactText)
      warn(torn)
      return ExitCode.success
    }
    var text = "\(path): \(total) events, \(bytes) bytes"
    if let first, let last {
      text +=
        "\nfrom \(first.rfc3339) to \(last.rfc3339) (\(describeSpan(last.milliseconds - first.milliseconds)))"
    }
    text += "\n\nevents by type:\n"
    let width = counts.keys.map(\.count).max() ?? 0
    for (type, count) in counts.sorted(by: { ($1.value, $0.key) < ($0.value, $1.key) }) {
      text += "  \(type.padding(toLength: width, withPad: " ", startingAt: 0))  \(count)\n"
    }
    text += "\nevents by origin:\n"
    for (origin, count) in origins.sorted(by: { $0.key < $1.key }) {
      text += "  \(origin): \(count)\n"
    }
    if seconds > 0 {
      text += String(
        format: "\nreplayed in %.3f s (%.0f events/s)\n", seconds, Double(total) / seconds)
    }
    StandardStream.output.write(text)
    warn(torn)
    return ExitCode.success
  }

  static func describeSpan(_ milliseconds: Int64) -> String {
    let seconds = milliseconds / 1000
    if seconds < 120 { return "\(seconds) s" }
    if seconds < 7200 { return "\(seconds / 60) min" }
    if seconds < 172_800 { return "\(seconds / 3600) h" }
    return "\(seconds / 86400) days"
  }

  // MARK: --verify

  private static func verify(_ log: ReplaySource, until: Int?) throws -> Int32 {
    var recovered = Recovered()
    if let torn = try log.fold(&recovered, until, nil) {
      StandardStream.error.line(
        "susi replay: NOT verified: \(torn); the next start of susi cuts it off, "
          + "so the log does not hold what was written")
      return ExitCode.dataError
    }
    let here = digest(recovered.state)
    let last = recovered.lastSeq
    let path = log.path
    guard until != nil || !log.isFile || verifySnapshots(path: path) else {
      return ExitCode.dataError
    }
    // Up to the last seq replayed here: a log others append to may grow meanwhile.
    guard let there = childDigest(path: path, until: until ?? last) else {
      StandardStream.error.line("susi replay: could not run a second replay in a fresh process")
      return ExitCode.software
    }
    // A second replay in this process must agree too (catches state kept outside the reducer).
    var again = Recovered()
    _ = try log.fold(&again, until ?? last, nil)
    let hereAgain = digest(again.state)
    if here == there && here == hereAgain {
      // A recorded state beside the log (NAME.state.json, as Events/ keeps them) must match too.
      let recordedPath =
        path.hasSuffix(".jsonl") ? String(path.dropLast(6)) + ".state.json" : path + ".state.json"
      var alsoTo = ""
      if until == nil, log.isFile, let recorded = FileManager.default.contents(atPath: recordedPath)
      {
        guard let expected = try? JSONParser.parse(Array(recorded)) else {
          StandardStream.error.line("susi replay: \(recordedPath) is not JSON")
          return ExitCode.dataError
        }
        let changes = JSONDiff.changes(from: expected, to: recovered.state.json, path: "")
        guard changes.isEmpty else {
          StandardStream.error.line(
            "susi replay: the log no longer replays to the state recorded in \(recordedPath):")
          for change in changes.prefix(20) { StandardStream.error.line("  \(change)") }
          return ExitCode.dataError
        }
        alsoTo = " and to \(recordedPath)"
      }
      StandardStream.output.line(
        "verified: \(last) events replay to the same state in two processes\(alsoTo) (sha256 \(here))"
      )
      return ExitCode.success
    }
    // Bisect for the first seq after which the replays disagree.
    var good = 0
    var bad = until ?? last
    while bad - good > 1 {
      let middle = (good + bad) / 2
      var probe = Recovered()
      _ = try log.fold(&probe, middle, nil)
      if digest(probe.state) == childDigest(path: path, until: middle) {
        good = middle
      } else {
        bad = middle
      }
    }
    StandardStream.error.line(
      "susi replay: NOT deterministic: replays first disagree after event \(bad) (digests \(here) here, \(there) in a fresh process)"
    )
    return ExitCode.dataError
  }

  /// Checks every snapshot beside the log: each must read back whole, match the log, and hold
  /// exactly what a full replay has folded up to its seq (state and bookkeeping). One pass over
  /// the log, stopping at each snapshot's seq in turn. Says what it found; false on any problem.
  private static func verifySnapshots(path: String) -> Bool {
    let files = SnapshotFiles(logPath: path)
    var snapshots: [Snapshot] = []
    var ok = true
    for file in files.all() {
      switch files.load(file.path) {
      case .success(let snapshot): snapshots.append(snapshot)
      case .failure(let problem):
        StandardStream.error.line("susi replay: the snapshot \(file.path) is unusable: \(problem)")
        ok = false
      }
    }
    var replayed = Recovered()
    var previous: Snapshot?
    for snapshot in snapshots.sorted(by: { $0.checkpoint.seq < $1.checkpoint.seq }) {
      do {
        try LogReplay.run(
          path: path, into: &replayed, until: snapshot.checkpoint.seq, after: previous?.checkpoint)
      } catch {
        StandardStream.error.line("susi replay: \(error)")
        return false
      }
      let seq = snapshot.checkpoint.seq
      if Snapshot.body(of: replayed) != Snapshot.body(of: snapshot.recovered) {
        StandardStream.error.line(
          "susi replay: the snapshot at seq \(seq) does not hold what the log replays to:")
        for change in snapshot.recovered.state.changes(to: replayed.state).prefix(20) {
          StandardStream.error.line("  \(change)")
        }
        ok = false
      } else {
        StandardStream.output.line(
          "verified: the snapshot at seq \(seq) equals the replay up to it (sha256 \(digest(replayed.state)))"
        )
      }
      previous = snapshot
    }
    return ok
  }

  /// The final-state digest computed by a fresh `susi replay --digest` process.
  static func childDigest(path: String, until: Int?) -> String? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    var arguments = ["replay", path, OptionName.digest.text]
    if let until { arguments += [OptionName.until.text, String(until)] }
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    do { try process.run() } catch { return nil }
    let data = pipe.fileHandleForReading.readToEndOfInput()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { return nil }
    return String(decoding: data, as: UTF8.self).trimmed
  }
}

/// A log to replay: a file, or a log in PostgreSQL (`DatabaseReplay`).
struct ReplaySource {
  /// The log as given (a fresh `susi replay` process is given it too), and as messages name it.
  var path: String
  var name: String
  var isFile: Bool
  /// Folds the log into `recovered` up to `until`, calling `visit` (when given) with each event,
  /// what it asked for and the state after it; says why a torn last record was not applied.
  /// Without a visitor the state is not handed out per event (which would copy it each time).
  var fold:
    (inout Recovered, Int?, ((Event, [Effect], State) throws -> Void)?) throws -> (
      any CustomStringConvertible
    )?

  /// The newest snapshot that matches the log, and why newer ones were ignored.
  var newestSnapshot: () -> (snapshot: Snapshot?, warnings: [String])

  static func file(_ path: String) -> ReplaySource {
    ReplaySource(
      path: path, name: path, isFile: true,
      fold: { recovered, until, visit in
        guard let visit else {
          return try LogReplay.run(path: path, into: &recovered, until: until)
        }
        return try LogReplay.run(path: path, into: &recovered, until: until, visit: visit)
      },
      newestSnapshot: { SnapshotFiles(logPath: path).newestValid() })
  }
}
