// susi-bench log [--records=N] [--always-records=N] [--batch-records=N] [--batch-delay-ms=N]
//                [--rounds=N]: the append-only event log.
//
// Appends 1,000,000 event-shaped records (150-400 bytes) under each fsync policy next to raw
// write() of the same lines, measures CRC-32C, the reader (framing and checksum only, then with a
// full JSON parse of every record), the reader's peak memory in a fresh process, and Python's
// json and orjson parsing the same file line by line.

import Foundation
import SusiCore
import SusiEventLog
import SusiFiles
import SusiJSON
import SusiSamples

let logBenchmark = Benchmark(
  name: "log",
  summary: "event log: append per fsync policy vs raw write(), CRC-32C, reader, Python json",
  run: { arguments in try LogBenchmark(arguments: arguments).run() })

/// Event-shaped JSON objects for benchmarks and crash tests: chat messages, answers, skill
/// lists and ratings, deterministic for a given seq.
/// The records the log benchmark and the crash-test child append: real events, encoded as the
/// store encodes them (see `RealisticEvents`).
enum BenchmarkEvents {
  /// The version 2 object (without crc) of record `seq`.
  static func object(seq: Int) -> [UInt8] { RealisticEvents.event(seq: seq).encoded() }
}

private struct LogBenchmark {
  let records: Int
  let alwaysRecords: Int
  let groupCommit: EventLogGroupCommit
  let rounds: Int
  let directory: String

  init(arguments: [String]) throws {
    records = option("--records", in: arguments).flatMap { Int($0) } ?? 1_000_000
    alwaysRecords = min(
      records, option("--always-records", in: arguments).flatMap { Int($0) } ?? 10_000)
    var groupCommit = EventLogGroupCommit()
    if let count = option("--batch-records", in: arguments).flatMap({ Int($0) }) {
      groupCommit.maxRecords = count
    }
    if let millis = option("--batch-delay-ms", in: arguments).flatMap({ Int($0) }) {
      groupCommit.maxDelay = .milliseconds(millis)
    }
    self.groupCommit = groupCommit
    rounds = max(1, option("--rounds", in: arguments).flatMap { Int($0) } ?? 3)
    directory = NSTemporaryDirectory() + "susi-bench-log-\(getpid())"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  }

  func run() throws {
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let clock = ContinuousClock()
    var objects: [[UInt8]] = []
    objects.reserveCapacity(records)
    let generation = clock.measure {
      for seq in 1...records { objects.append(BenchmarkEvents.object(seq: seq)) }
    }
    let objectBytes = objects.reduce(0) { $0 + $1.count }
    let sizes = objects.map(\.count)
    print(
      "records: \(records), object sizes \(sizes.min() ?? 0)-\(sizes.max() ?? 0) bytes, "
        + "mean \(objectBytes / max(records, 1)), generated in \(format(generation))")

    try measureCRC(objects, objectBytes: objectBytes)

    // Machines are noisy: each contender runs `rounds` times, interleaved, and keeps its best.
    let neverPath = directory + "/never.jsonl"
    var neverTime = Duration.seconds(1e9)
    var batchTime = neverTime
    var sharedTime = neverTime
    var rawTime = neverTime
    var lines: (bytes: [UInt8], offsets: [Int]) = ([], [])
    for round in 0..<rounds {
      try? FileManager.default.removeItem(atPath: neverPath)
      neverTime = min(neverTime, try append(objects, policy: .never, to: neverPath))
      if round == 0 { lines = try fileLines(neverPath) }
      let rawPath = directory + "/raw.jsonl"
      try? FileManager.default.removeItem(atPath: rawPath)
      rawTime = min(rawTime, try rawWrite(lines, to: rawPath, sync: false))
      let batchPath = directory + "/batch.jsonl"
      try? FileManager.default.removeItem(atPath: batchPath)
      batchTime = min(batchTime, try append(objects, policy: .batch, to: batchPath))
      let sharedPath = directory + "/shared.jsonl"
      try? FileManager.default.removeItem(atPath: sharedPath)
      sharedTime = min(
        sharedTime, try append(objects, policy: .batch, to: sharedPath, shared: true))
    }
    // An fdatasync also waits for the file system journal, which first writes out the dirty
    // data of the files above: flush all of that before timing per-record syncs.
    for name in ["raw.jsonl", "batch.jsonl", "shared.jsonl"] {
      try? FileManager.default.removeItem(atPath: directory + "/" + name)
    }
    sync()
    let alwaysObjects = Array(objects.prefix(alwaysRecords))
    let syncedLines = (lines.bytes, Array(lines.offsets.prefix(alwaysRecords + 1)))
    var alwaysTime = Duration.seconds(1e9)
    var rawSyncTime = alwaysTime
    for _ in 0..<rounds {
      let alwaysPath = directory + "/always.jsonl"
      try? FileManager.default.removeItem(atPath: alwaysPath)
      alwaysTime = min(alwaysTime, try append(alwaysObjects, policy: .always, to: alwaysPath))
      let rawSyncPath = directory + "/raw-sync.jsonl"
      try? FileManager.default.removeItem(atPath: rawSyncPath)
      rawSyncTime = min(rawSyncTime, try rawWrite(syncedLines, to: rawSyncPath, sync: true))
    }
    objects = []

    let fileSize = lines.bytes.count
    print(
      "\nappend (\(records) records, \(megabytes(fileSize)) MB of lines; best of \(rounds) rounds; "
        + "batch flushes after \(groupCommit.maxRecords) records or \(groupCommit.maxDelay)):")
    printRate("raw write(), one per record", records, fileSize, rawTime)
    printRate("append, fsync never", records, fileSize, neverTime, against: rawTime)
    printRate("append, fsync batch (default)", records, fileSize, batchTime, against: rawTime)
    printRate(
      "append to a shared log, fsync batch", records, fileSize, sharedTime,
      against: rawTime)
    let alwaysBytes = lines.offsets[alwaysRecords]
    print(
      "  measured on the first \(alwaysRecords) records (per-record rate applies to any count):")
    printRate("raw write() + fdatasync per record", alwaysRecords, alwaysBytes, rawSyncTime)
    printRate("append, fsync always", alwaysRecords, alwaysBytes, alwaysTime, against: rawSyncTime)
    print(
      "  fsync always extrapolated to \(records) records: "
        + format(alwaysTime * (Double(records) / Double(max(alwaysRecords, 1)))))

    try measureReader(neverPath, fileSize: fileSize)
    measurePeakMemory(neverPath)
    try ReplayFigures.measure(path: neverPath, fileSize: fileSize, records: records)
    measurePython(neverPath, fileSize: fileSize)
  }

  // MARK: Pieces

  private func measureCRC(_ objects: [[UInt8]], objectBytes: Int) throws {
    let big = [UInt8](repeating: 0x5A, count: 64 << 20)
    var sink: UInt32 = 0
    let clock = ContinuousClock()
    let bigTime = clock.measure { for _ in 0..<8 { sink ^= CRC32C.checksum(big) } }
    let smallTime = clock.measure { for object in objects { sink ^= CRC32C.checksum(object) } }
    print(
      "CRC-32C: \(rate(8 * big.count, bigTime)) MB/s on 64 MiB buffers, "
        + "\(rate(objectBytes, smallTime)) MB/s record by record (checksum \(sink & 1))")
  }

  /// Appends every object; `shared` takes the append lock (and looks for others' records)
  /// around each one, as every susi process on a shared log does.
  private func append(
    _ objects: [[UInt8]], policy: EventLogFsyncPolicy, to path: String, shared: Bool = false
  ) throws -> Duration {
    let writer = try EventLogWriter(
      path: path, options: .init(fsync: policy, groupCommit: groupCommit, shared: shared))
    let time = try ContinuousClock().measure {
      if shared {
        for object in objects { try writer.withAppendLock { _ in try writer.append(object) } }
      } else {
        for object in objects { try writer.append(object) }
      }
      try writer.close()
    }
    return time
  }

  private func fileLines(_ path: String) throws -> (bytes: [UInt8], offsets: [Int]) {
    let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    var offsets = [0]
    offsets.reserveCapacity(records + 1)
    for (index, byte) in bytes.enumerated() where byte == 0x0A { offsets.append(index + 1) }
    return (bytes, offsets)
  }

  /// The baseline: the same lines, one write() each on an O_APPEND descriptor.
  private func rawWrite(_ lines: (bytes: [UInt8], offsets: [Int]), to path: String, sync: Bool)
    throws -> Duration
  {
    let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    defer { close(fd) }
    return lines.bytes.withUnsafeBytes { buffer in
      ContinuousClock().measure {
        for index in 0..<(lines.offsets.count - 1) {
          let start = lines.offsets[index]
          _ = write(fd, buffer.baseAddress! + start, lines.offsets[index + 1] - start)
          if sync { fdatasync(fd) }
        }
      }
    }
  }

  private func measureReader(_ path: String, fileSize: Int) throws {
    let clock = ContinuousClock()
    var count = 0
    let framing = try clock.measure {
      let reader = try EventLogReader(path: path)
      try reader.forEachRecord { _ in count += 1 }
    }
    var parsed = 0
    let parsing = try clock.measure {
      let reader = try EventLogReader(path: path)
      try reader.forEachRecord { record in
        if case .object = try JSONParser.parse(record.object) { parsed += 1 }
      }
    }
    print("\nread (\(count) records, file in the page cache):")
    printRate("reader: framing + CRC-32C", count, fileSize, framing)
    printRate("reader + JSONParser.parse of each record", parsed, fileSize, parsing)
  }

  private func measurePeakMemory(_ path: String) {
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
    let output = runProcess(executable, ["log-read-child", "--log", path])
    let fields = output.split(separator: " ")
    if fields.count >= 8, let before = Int(fields[5]), let after = Int(fields[7]) {
      print(
        "  peak RSS of a fresh process reading the whole file: \(after / 1024) MiB "
          + "(\(before / 1024) MiB before reading)")
    } else {
      print("  peak RSS: could not run the reader child: \(output)")
    }
  }

  private func measurePython(_ path: String, fileSize: Int) {
    let script = """
      import sys, time
      path = sys.argv[1]
      def run(name, loads):
          start = time.perf_counter()
          count = 0
          with open(path, 'rb') as f:
              for line in f:
                  loads(line)
                  count += 1
          print(name, count, time.perf_counter() - start)
      import json
      run('json', json.loads)
      try:
          import orjson
          run('orjson', orjson.loads)
      except ImportError:
          print('orjson missing')
      """
    print("\nPython, parsing the same file line by line:")
    let output = runProcess("/usr/bin/env", ["python3", "-c", script, path])
    for line in output.split(separator: "\n") {
      let fields = line.split(separator: " ")
      guard fields.count == 3, let count = Int(fields[1]), let seconds = Double(fields[2]) else {
        print("  \(line)")
        continue
      }
      printRate("python3 \(fields[0]).loads", count, fileSize, .seconds(seconds))
    }
  }

  private func runProcess(_ executable: String, _ arguments: [String]) -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    do {
      try process.run()
    } catch {
      return "cannot run \(executable): \(error)"
    }
    let data = pipe.fileHandleForReading.readToEndOfInput()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
  }

  // MARK: Printing

  private func printRate(
    _ label: String, _ count: Int, _ bytes: Int, _ time: Duration, against baseline: Duration? = nil
  ) {
    let seconds = time.seconds
    let perSecond = Int(Double(count) / max(seconds, 1e-9))
    var line =
      "  \(label.padding(toLength: 44, withPad: " ", startingAt: 0)) "
      + "\(String(perSecond).leftPadded(10)) records/s  \(rate(bytes, time).leftPadded(7)) MB/s  "
      + format(time)
    if let baseline {
      line += "  (\(Int((baseline.seconds / max(seconds, 1e-9) * 100).rounded()))% of raw)"
    }
    print(line)
  }

  private func rate(_ bytes: Int, _ time: Duration) -> String {
    String(Int(Double(bytes) / 1e6 / max(time.seconds, 1e-9)))
  }

  private func megabytes(_ bytes: Int) -> String { String(format: "%.1f", Double(bytes) / 1e6) }

  private func format(_ time: Duration) -> String { String(format: "%.3f s", time.seconds) }
}

extension Duration {
  fileprivate var seconds: Double {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
  }
}

extension String {
  fileprivate func leftPadded(_ width: Int) -> String {
    count >= width ? self : String(repeating: " ", count: width - count) + self
  }
}
