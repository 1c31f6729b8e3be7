// susi-bench jsonl [--lines=N] [--rounds=N]: the JSON-lines frontend end to end.
//
// Feeds a file of intents that need no network (a server switch, and intents the reducer
// refuses: bad URLs, empty queries, nine stars, cancelling unknown requests) mixed with lines the
// frontend refuses itself (unknown types, broken JSON, wrong fields) through a whole
// `JSONLinesSession` — reader thread, decoding, the store (log sink discarding), the real
// effects runner (which answers these locally), the ordered writer — to /dev/null. Next to it, in the same run, a baseline that
// only reads the same file, decodes each line and re-encodes it as an event or an error line.

import CEpoll
import Foundation
import SusiClock
import SusiCore
import SusiEventLog
import SusiJSON
import SusiJSONLines
import SusiRunner
import SusiStore
import Synchronization

let jsonlBenchmark = Benchmark(
  name: "jsonl",
  summary: "JSON-lines frontend: lines/s end to end vs read+decode+encode only",
  run: { arguments in try await JSONLBenchmark(arguments: arguments).run() })

struct JSONLBenchmark {
  var lines = 200_000
  var rounds = 3

  init(arguments: [String]) {
    for argument in arguments {
      if let value = argument.value(of: "--lines") { lines = value }
      if let value = argument.value(of: "--rounds") { rounds = value }
    }
  }

  /// Line `i` of the input: five kinds the store takes, three the frontend refuses.
  static func line(_ i: Int) -> String {
    switch i % 8 {
    case 0:
      #"{"type":"setServer","payload":{"url":"http://127.0.0.1:\#(1024 + i % 50000)"},"id":\#(i)}"#
    case 1: #"{"type":"setServer","payload":{"url":"ftp://nowhere/\#(i)"},"id":\#(i)}"#
    case 2: #"{"type":"sendMessage","payload":{"query":"   "},"id":\#(i)}"#
    case 3:
      #"{"type":"submitRating","payload":{"group":"Knowledge","skill":"Synonyms","stars":9},"id":\#(i)}"#
    case 4: #"{"type":"cancelRequest","payload":{"seq":\#(10_000_000 + i)},"id":"c\#(i)"}"#
    case 5: #"{"type":"sendMesage","payload":{"query":"hello"},"id":\#(i)}"#
    case 6: #"{"type":"sendMessage","payload":{"query":"hello"},"id":\#(i)"#
    default:
      #"{"type":"submitRating","payload":{"group":"Knowledge","skill":"Synonyms","stars":"5"},"id":\#(i)}"#
    }
  }

  func run() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "susi-bench-jsonl-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let inputPath = directory.appendingPathComponent("input.jsonl").path
    var text = ""
    text.reserveCapacity(lines * 90)
    for i in 0..<lines { text += Self.line(i) + "\n" }
    try text.write(toFile: inputPath, atomically: false, encoding: .utf8)
    let bytes = text.utf8.count
    print(
      "input: \(lines) lines, \(bytes / 1024) KiB (5 of 8 kinds go to the store, 3 are refused)")

    var baseline: [Measurement] = []
    var storeAlone: [Measurement] = []
    var frontend: [Measurement] = []
    var withLog: [Measurement] = []
    var outputLines = 0
    let actions = Self.decodedIntents(text)
    for _ in 0..<rounds {
      baseline.append(try Measurement.of { try Self.runBaseline(inputPath) })
      storeAlone.append(
        try await Measurement.ofAsync {
          await Self.runStoreAlone(actions, directory: directory.path)
        })
      var written = 0
      frontend.append(
        try await Measurement.ofAsync {
          written = try await Self.runFrontend(inputPath, directory: directory.path)
        })
      outputLines = written
      let logPath = directory.appendingPathComponent("events-\(withLog.count).jsonl").path
      withLog.append(
        try await Measurement.ofAsync {
          _ = try await Self.runFrontend(inputPath, directory: directory.path, logPath: logPath)
        })
      try? FileManager.default.removeItem(atPath: logPath)
    }
    let base = Measurement.best(baseline)
    let front = Measurement.best(frontend)
    print("                                      lines/s (wall)   CPU µs/line   best of \(rounds)")
    print("baseline (read, decode, encode)      \(base.report(lines))")
    print("store alone (decoded intents, runner)\(Measurement.best(storeAlone).report(lines))")
    print("frontend (session + store + runner)  \(front.report(lines))   \(outputLines) lines out")
    print("frontend with the file log (batch)   \(Measurement.best(withLog).report(lines))")
    print(
      "frontend / baseline: \(String(format: "%.2f", base.wall / front.wall)) by wall time, "
        + "\(String(format: "%.2f", base.cpu / front.cpu)) by CPU time (goal: at least 0.50)")
  }

  /// Wall-clock and process CPU seconds of one run. CPU time is the steadier figure on a
  /// shared machine; wall time is what a caller sees.
  struct Measurement {
    var wall: Double
    var cpu: Double

    static func of(_ body: () throws -> Void) throws -> Measurement {
      let (wall, cpu) = (now(CLOCK_MONOTONIC), now(CLOCK_PROCESS_CPUTIME_ID))
      try body()
      return Measurement(
        wall: now(CLOCK_MONOTONIC) - wall, cpu: now(CLOCK_PROCESS_CPUTIME_ID) - cpu)
    }

    static func ofAsync(_ body: () async throws -> Void) async throws -> Measurement {
      let (wall, cpu) = (now(CLOCK_MONOTONIC), now(CLOCK_PROCESS_CPUTIME_ID))
      try await body()
      return Measurement(
        wall: now(CLOCK_MONOTONIC) - wall, cpu: now(CLOCK_PROCESS_CPUTIME_ID) - cpu)
    }

    static func now(_ clock: clockid_t) -> Double {
      var t = timespec()
      clock_gettime(clock, &t)
      return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// The fastest wall time and the smallest CPU time, each over all rounds.
    static func best(_ all: [Measurement]) -> Measurement {
      Measurement(wall: all.map(\.wall).min() ?? 1, cpu: all.map(\.cpu).min() ?? 1)
    }

    func report(_ lines: Int) -> String {
      String(format: "%14.0f   %11.2f", Double(lines) / wall, cpu / Double(lines) * 1e6)
    }
  }

  /// Reads the file in 64 KiB chunks, splits lines, decodes each as the frontend would and
  /// encodes what the frontend would write for it (an event or an error line) to /dev/null.
  static func runBaseline(_ path: String) throws {
    let input = open(path, O_RDONLY)
    let output = open("/dev/null", O_WRONLY)
    guard input >= 0, output >= 0 else { throw JSONLinesIOError("cannot open the benchmark files") }
    defer {
      close(input)
      close(output)
    }
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    var partial: [UInt8] = []
    var out = JSONWriter(capacity: 128 * 1024)
    var seq = 0
    var number = 0
    func handle(_ line: UnsafeRawBufferPointer) {
      number += 1
      var id: JSON?
      do {
        let json = try JSONParser.parse(line)
        guard case .object(let object) = json, case .string(let type)? = object["type"] else {
          throw JSONLinesError(.invalidRequest, "not an action", line: number)
        }
        id = object["id"]
        guard ActionType(rawValue: type)?.kind == .intent else {
          throw JSONLinesError(.unknownType, "no intent '\(type)'", line: number)
        }
        let action = try Action.decode(type: type, payload: object["payload"], strict: true)
        seq += 1
        let event = Event(
          seq: seq, at: Timestamp(milliseconds: 1_795_341_600_000), origin: .jsonl, id: id,
          action: action)
        event.write(to: &out)
      } catch let error as JSONLinesError {
        out.bytes += error.encoded()
      } catch {
        out.bytes += JSONLinesError(.invalidPayload, "\(error)", id: id, line: number).encoded()
      }
      out.byte(0x0a)
    }
    while true {
      let n = chunk.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
      if n <= 0 { break }
      chunk.withUnsafeBytes { raw in
        var start = 0
        while start < n, let found = memchr(raw.baseAddress! + start, 0x0a, n - start) {
          let end = raw.baseAddress!.distance(to: UnsafeRawPointer(found))
          if partial.isEmpty {
            handle(UnsafeRawBufferPointer(rebasing: raw[start..<end]))
          } else {
            partial += raw[start..<end]
            partial.withUnsafeBytes { handle($0) }
            partial.removeAll(keepingCapacity: true)
          }
          start = end + 1
        }
        partial += raw[start..<n]
      }
      out.bytes.withUnsafeBytes { _ = write(output, $0.baseAddress, $0.count) }
      out.bytes.removeAll(keepingCapacity: true)
    }
  }

  /// The real effects runner: every intent in the input is answered without the network
  /// (refusals and server switches take no request).
  static func runner(_ directory: String) -> SusiRunner {
    SusiRunner(configuration: RunnerConfiguration(stateDirectory: directory + "/state"))
  }

  /// The intents among the input lines, decoded ahead of time, with their ids.
  static func decodedIntents(_ text: String) -> [(Action, JSON?)] {
    var out: [(Action, JSON?)] = []
    for line in text.split(separator: "\n") {
      guard let json = try? JSONParser.parse(String(line)), case .string(let type)? = json["type"],
        let action = try? Action.decode(type: type, payload: json["payload"], strict: true)
      else { continue }
      out.append((action, json["id"]))
    }
    return out
  }

  /// What the store and runner cost without any frontend: the same intents, already decoded,
  /// sent in batches with a follower taking every event (a lower bound for the frontend).
  static func runStoreAlone(_ actions: [(Action, JSON?)], directory: String) async {
    let store = Store(sink: DiscardingSink(), runner: runner(directory), clock: benchClock)
    // The log keeps nothing here, so events are taken as they are logged, not read back.
    let count = Mutex(0)
    let following = EventForwarding(
      store.events(after: 0), toBatches: { events in count.withLock { $0 += events.count } })
    var index = 0
    while index < actions.count {
      let end = min(index + 512, actions.count)
      await sendAll(actions[index..<end], to: store)
      index = end
    }
    _ = await store.drain(timeout: 60)
    following.stop()
    await store.close()
  }

  static func sendAll(_ actions: ArraySlice<(Action, JSON?)>, to store: isolated Store) async {
    for (action, id) in actions { _ = try? await store.send(action, origin: .jsonl, id: id) }
  }

  /// Runs a whole session over the file, output to /dev/null; returns the lines written.
  /// With `logPath`, events go to a real event log (fsync policy `batch`, as `susi jsonl` uses).
  static func runFrontend(_ path: String, directory: String, logPath: String? = nil) async throws
    -> Int
  {
    let input = open(path, O_RDONLY)
    let output = open("/dev/null", O_WRONLY)
    guard input >= 0, output >= 0 else { throw JSONLinesIOError("cannot open the benchmark files") }
    defer {
      close(input)
      close(output)
    }
    let counted = CountingOutput(FileDescriptorOutput(descriptor: output))
    let sink: any EventSink =
      if let logPath { FileEventSink(writer: try EventLogWriter(path: logPath)) } else {
        DiscardingSink()
      }
    let store = Store(sink: sink, runner: runner(directory), clock: benchClock)
    let session = JSONLinesSession(
      store: store, input: FileDescriptorInput(descriptor: input), output: counted,
      diagnostics: { FileHandle.standardError.write(Data("jsonl: \($0)\n".utf8)) })
    let summary = await session.run()
    await store.close()
    guard summary.succeeded, summary.drained else {
      throw JSONLinesIOError("the session failed: \(summary)")
    }
    return counted.lines
  }
}

/// Counts the lines written, passing the bytes on.
private final class CountingOutput: JSONLinesOutput {
  private let base: FileDescriptorOutput
  private let count = Atomic<Int>(0)
  init(_ base: FileDescriptorOutput) { self.base = base }
  var lines: Int { count.load(ordering: .relaxed) }
  func write(_ bytes: UnsafeRawBufferPointer) -> Result<Void, JSONLinesIOError> {
    var lines = 0
    var start = 0
    while start < bytes.count,
      let found = memchr(bytes.baseAddress! + start, 0x0a, bytes.count - start)
    {
      lines += 1
      start = bytes.baseAddress!.distance(to: UnsafeRawPointer(found)) + 1
    }
    count.add(lines, ordering: .relaxed)
    return base.write(bytes)
  }
}

/// A log that keeps nothing: the benchmark measures the frontend, not the disk.
private final class DiscardingSink: EventSink {
  func append(_ record: [UInt8]) throws -> [UInt8] { record }
  func sync() throws {}
  func close() {}
  var history: any EventHistory { MemoryEventHistory(MemoryEventSink()) }
}

/// A clock that stands still, so every run stamps the same times.
private let benchClock = ManualTimeSource(millisecondsSince1970: 1_795_341_600_000)

extension String {
  /// The integer after `name=` in `--name=N`.
  fileprivate func value(of name: String) -> Int? {
    guard hasPrefix(name + "=") else { return nil }
    return Int(dropFirst(name.count + 1))
  }
}
