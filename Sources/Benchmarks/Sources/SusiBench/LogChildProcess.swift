// Hidden modes of susi-bench that run as a child process of a benchmark:
//
//     susi-bench log-read-child --log PATH
//     susi-bench log-replay-child --log PATH
//
// log-read-child reads the whole log and prints "records N bytes B hwm-before KB hwm-after KB",
// the process's peak resident memory before and after reading.

import Foundation
import SusiEventLog

/// Runs a child mode when the arguments ask for one; returns its exit status, or nil.
func runLogChildIfRequested(_ arguments: [String]) -> Int32? {
  switch arguments.first {
  case "log-read-child": return logReadChild(Array(arguments.dropFirst()))
  case "log-replay-child": return ReplayFigures.child(Array(arguments.dropFirst()))
  default: return nil
  }
}

/// Writes a line to stdout at once, unbuffered: a parent process may wait on it, and a run cut
/// short keeps what it printed. A closed stdout (a pipe into `head`) drops it quietly.
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

private func logReadChild(_ arguments: [String]) -> Int32 {
  guard let path = option("--log", in: arguments) else {
    report("usage: log-read-child --log PATH")
    return 64
  }
  let before = peakResidentKilobytes()
  var records = 0
  var bytes = 0
  do {
    let reader = try EventLogReader(path: path)
    try reader.forEachRecord { record in
      records += 1
      bytes += record.object.count
    }
  } catch {
    report("failed \(error)")
    return 1
  }
  report(
    "records \(records) bytes \(bytes) hwm-before \(before) hwm-after \(peakResidentKilobytes())")
  return 0
}

/// VmHWM from /proc/self/status: the most resident memory this process has had, in KiB.
func peakResidentKilobytes() -> Int {
  guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
    return -1
  }
  for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
  }
  return -1
}
