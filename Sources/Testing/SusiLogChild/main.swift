// susi-log-child: a process that appends to an event log, for the tests that need a second
// writer or a crash mid-append (test support, not part of the product):
//
//     susi-log-child --log PATH --fsync always|batch|never
//                    [--count N] [--batch N] [--hold] [--file-size-limit BYTES]
//                    [--shared [--tear]]
//
// It opens the log and appends realistic events, reporting on stdout, one line each: "opened
// NEXT_SEQ TORN_BYTES", "appended SEQ" after every append returns, "done" after --count records,
// and "failed CODE SEQ MESSAGE" when an append fails. Without --count it appends until killed.
// --hold keeps the log open after "done" until stdin closes. --file-size-limit sets RLIMIT_FSIZE
// so that a write fails part-way, then tries one more append before exiting. --shared opens the
// log shared with other processes and appends each record under the append lock, after the
// records others appended; --batch N appends N records at a time with one write
// (`appendLines`) and reports the last seq of each batch; with --tear it then starts one more append, writes half of its line,
// reports "torn" and waits to be killed, still holding the lock.

import Foundation
import SusiCore
import SusiEventLog
import SusiSamples

exit(LogAppendChild(arguments: Array(CommandLine.arguments.dropFirst())).run())

/// The version 2 object (without crc) of record `seq`: a real event, encoded as the store
/// encodes it.
func eventObject(seq: Int) -> [UInt8] { RealisticEvents.event(seq: seq).encoded() }

/// Writes a line to stdout at once: the parent waits on these lines, so no buffering.
func report(_ line: String) {
  let bytes = Array((line + "\n").utf8)
  var done = 0
  while done < bytes.count {
    let n = bytes[done...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
    if n <= 0 { return }
    done += n
  }
}

/// The value of `flag` in `arguments`: `--flag=value`, or `--flag value`.
func option(_ flag: String, in arguments: [String]) -> String? {
  if let joined = arguments.first(where: { $0.hasPrefix(flag + "=") }) {
    return String(joined.dropFirst(flag.count + 1))
  }
  guard let index = arguments.firstIndex(of: flag), index + 1 < arguments.count else { return nil }
  return arguments[index + 1]
}

private struct LogAppendChild {
  let arguments: [String]

  func run() -> Int32 {
    guard let path = option("--log", in: arguments),
      let policy = EventLogFsyncPolicy(rawValue: option("--fsync", in: arguments) ?? "batch")
    else {
      report("failed usage 0 susi-log-child --log PATH --fsync always|batch|never")
      return 64
    }
    let count = option("--count", in: arguments).flatMap { Int($0) }
    let batch = max(1, option("--batch", in: arguments).flatMap { Int($0) } ?? 1)
    let writer: EventLogWriter
    do {
      writer = try EventLogWriter(
        path: path, options: .init(fsync: policy, shared: arguments.contains("--shared")))
    } catch {
      report("failed \(error.code.rawValue) 0 \(error)")
      return 1
    }
    report("opened \(writer.nextSeq) \(writer.recovery.tornTail?.byteCount ?? 0)")
    if let limit = option("--file-size-limit", in: arguments).flatMap({ rlim_t($0) }) {
      signal(SIGXFSZ, SIG_IGN)
      var bound = rlimit(rlim_cur: limit, rlim_max: limit)
      setrlimit(Int32(RLIMIT_FSIZE.rawValue), &bound)
    }
    var appended = 0
    while count.map({ appended < $0 }) ?? true {
      var seq = writer.nextSeq
      do {
        try writer.withAppendLock { _ in
          seq = writer.nextSeq
          if batch > 1 {
            _ = try writer.appendLines((seq..<(seq + batch)).map(eventObject))
            seq += batch - 1
          } else {
            try writer.append(eventObject(seq: seq))
          }
        }
      } catch {
        let code = (error as? EventLogError)?.code.rawValue ?? "unknown"
        report("failed \(code) \(seq) \(error)")
        let retry = (try? writer.append(eventObject(seq: seq))) != nil
        report(retry ? "retry-succeeded" : "retry-failed")
        return 3
      }
      appended += batch
      report("appended \(seq)")
    }
    report("done")
    if arguments.contains("--tear") { tear(writer, path: path) }
    if arguments.contains("--hold") {
      var byte: UInt8 = 0
      while read(0, &byte, 1) > 0 {}
    }
    do {
      try writer.close()
    } catch {
      report("failed \(error.code.rawValue) 0 \(error)")
      return 1
    }
    return 0
  }
}

/// Starts an append under the lock, writes half of its line and waits to be killed: a writer
/// that crashes mid-append.
private func tear(_ writer: EventLogWriter, path: String) -> Never {
  try? writer.withAppendLock { _ in
    let line = EventLogWriter.line(for: eventObject(seq: writer.nextSeq))
    let fd = open(path, O_WRONLY | O_APPEND)
    _ = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count / 2) }
    report("torn")
    while true { pause() }
  }
  exit(1)
}
