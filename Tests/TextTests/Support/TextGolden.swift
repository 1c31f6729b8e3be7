import Foundation
import SusiTesting

/// Golden transcripts for the text frontend: what a run printed, with what changes from run to
/// run (ports, temporary paths, times) replaced by placeholders. Re-recorded only when
/// `SUSI_RECORD_GOLDEN=1` is set, never by hand.
enum TextGolden {
  static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent()
    .appendingPathComponent("Golden")

  static var recording: Bool { ProcessInfo.processInfo.environment["SUSI_RECORD_GOLDEN"] == "1" }

  /// One run written out: the command, its input lines, both streams and the exit code.
  static func transcript(_ arguments: [String], input: String = "", _ run: SusiProcess.Output)
    -> String
  {
    var out = "$ susi " + arguments.map(quoted).joined(separator: " ") + "\n"
    for line in input.split(separator: "\n", omittingEmptySubsequences: false).dropLast(
      input.hasSuffix("\n") ? 1 : 0)
    where !input.isEmpty {
      out += "< \(line)\n"
    }
    out += "--- stdout\n" + run.stdout
    if !run.stdout.isEmpty && !run.stdout.hasSuffix("\n") { out += "\n(no newline at end)\n" }
    out += "--- stderr\n" + run.stderr
    if !run.stderr.isEmpty && !run.stderr.hasSuffix("\n") { out += "\n(no newline at end)\n" }
    out += "--- exit \(run.status)\n"
    return out
  }

  private static func quoted(_ word: String) -> String {
    word.isEmpty || word.contains(where: { " \"'$\\".contains($0) }) ? "'\(word)'" : word
  }

  /// `text` with the temporary folder, loopback ports and times replaced.
  static func normalize(_ text: String, temporaryFolder: String) -> String {
    var text = text.replacingOccurrences(of: temporaryFolder, with: "$TMP")
    let rules: [(String, String)] = [
      (#"(127\.0\.0\.1|localhost):\d+"#, "$1:PORT"),
      (#"due at (\d{4}-\d{2}-\d{2} )?\d{2}:\d{2}( UTC)? \([^)]*\)"#, "due at <time>"),
      (#"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z| UTC)?"#, "<time>"),
    ]
    for (pattern, replacement) in rules {
      guard let regex = try? NSRegularExpression(pattern: pattern) else { continue }
      text = regex.stringByReplacingMatches(
        in: text, range: NSRange(text.startIndex..., in: text), withTemplate: replacement)
    }
    return text
  }

  /// Compares `actual` with the golden file `name` (or records it); returns a description of
  /// the first difference, or nil when they match.
  static func compare(_ name: String, _ actual: String) -> String? {
    let file = folder.appendingPathComponent(name + ".txt")
    if recording {
      try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      try? actual.write(to: file, atomically: true, encoding: .utf8)
      return nil
    }
    guard let expected = try? String(contentsOf: file, encoding: .utf8) else {
      return "no golden file \(name).txt; record it with SUSI_RECORD_GOLDEN=1"
    }
    guard expected != actual else { return nil }
    let e = expected.split(separator: "\n", omittingEmptySubsequences: false)
    let a = actual.split(separator: "\n", omittingEmptySubsequences: false)
    for index in 0..<max(e.count, a.count) {
      let want = index < e.count ? String(e[index]) : "(end)"
      let got = index < a.count ? String(a[index]) : "(end)"
      if want != got {
        return
          "\(name).txt differs at line \(index + 1):\n  expected: \(want)\n  actual:   \(got)\n\nwhole output:\n\(actual)"
      }
    }
    return "\(name).txt differs"
  }
}
