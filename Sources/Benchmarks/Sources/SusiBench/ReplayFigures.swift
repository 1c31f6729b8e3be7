import Foundation
import SusiCore
import SusiEventLog
import SusiFiles
import SusiJSON
import SusiStore

/// The replay figures on a log of realistic events: decoding, reducing, encoding, the
/// whole streaming replay, and the memory a fresh process needs to replay it.
enum ReplayFigures {
  static func measure(path: String, fileSize: Int, records: Int) throws {
    let clock = ContinuousClock()
    var events: [Event] = []
    events.reserveCapacity(records)
    let decoding = try clock.measure {
      // The reader replay uses: the pull reader, with strings that repeat shared.
      let reader = try EventLogReader(path: path)
      let strings = JSONStringCache()
      try reader.forEachRecord { record in
        events.append(try Event.read(record.object, strings: strings))
      }
    }
    var state = State()
    let reducing = clock.measure {
      for event in events { _ = reduce(&state, event) }
    }
    var encodedBytes = 0
    let encoding = clock.measure {
      for event in events { encodedBytes &+= event.encoded().count }
    }
    let transcript = state.transcript.count
    events = []
    state = State()
    var recovered = Recovered()
    let replaying = try clock.measure { try LogReplay.run(path: path, into: &recovered) }

    print("\nreplay (\(records) realistic events; the final state holds \(transcript) chat lines):")
    line("decode only (reader + Event.read)", records, fileSize, decoding)
    line("reduce only (events already decoded)", records, nil, reducing)
    line("encode only (Event.encoded, the append path)", records, encodedBytes, encoding)
    line("replay: read + decode + reduce, streaming", records, fileSize, replaying)
    print(
      "  final state digest input: \(recovered.state.canonicalJSON().count / 1_000_000) MB of canonical JSON"
    )
    replayMemory(path)
  }

  private static func line(_ label: String, _ count: Int, _ bytes: Int?, _ time: Duration) {
    let seconds = Double(time.components.seconds) + Double(time.components.attoseconds) / 1e18
    var text =
      "  \(label.padding(toLength: 46, withPad: " ", startingAt: 0)) \(Int(Double(count) / seconds)) events/s"
    if let bytes { text += String(format: "  %.0f MB/s", Double(bytes) / 1e6 / seconds) }
    text += String(format: "  %.3f s", seconds)
    print(text)
  }

  /// Runs `log-replay-child` and prints its memory figures.
  private static func replayMemory(_ path: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    process.arguments = ["log-replay-child", "--log", path]
    let pipe = Pipe()
    process.standardOutput = pipe
    do { try process.run() } catch {
      print("  replay memory: could not run the child: \(error)")
      return
    }
    let output = String(decoding: pipe.fileHandleForReading.readToEndOfInput(), as: UTF8.self)
    process.waitUntilExit()
    let fields = output.split(whereSeparator: { $0 == " " || $0 == "\n" })
    guard fields.count >= 8, let before = Int(fields[3]), let peak = Int(fields[5]),
      let after = Int(fields[7])
    else {
      print("  replay memory: unexpected child output: \(output)")
      return
    }
    let state = after - before
    print(
      "  peak RSS of a fresh process replaying the log: \(peak / 1024) MiB; "
        + "\(before / 1024) MiB before, \(after / 1024) MiB holding the final state "
        + "(state ≈ \(state / 1024) MiB; peak beyond it: \((peak - after) / 1024) MiB)")
  }

  /// The child: replays the log and reports `events N rss-before KB peak KB rss-after KB`.
  static func child(_ arguments: [String]) -> Int32 {
    guard let path = option("--log", in: arguments) else {
      report("usage: log-replay-child --log PATH")
      return 64
    }
    let before = residentKilobytes()
    var recovered = Recovered()
    do {
      try LogReplay.run(path: path, into: &recovered)
    } catch {
      report("failed \(error)")
      return 1
    }
    report(
      "events \(recovered.lastSeq) rss-before \(before) peak \(peakResidentKilobytes()) rss-after \(residentKilobytes())"
    )
    return 0
  }

  /// VmRSS from /proc/self/status, in KiB.
  static func residentKilobytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
      return -1
    }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
      return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }
    return -1
  }
}
