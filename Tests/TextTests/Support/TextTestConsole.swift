import SusiCommandLine
import SusiTerminal
import Synchronization

@testable import SusiText

/// Captures what a text session writes to standard output and standard error.
final class TextCapture: Sendable {
  private let streams = Mutex((output: "", error: ""))

  var output: String { streams.withLock { $0.output } }
  var error: String { streams.withLock { $0.error } }

  /// A console writing here: no colours, 80 columns, Unicode, as if piped (not interactive).
  func console(interactive: Bool = false, glyphs: Glyphs = .utf8) -> TextConsole {
    TextConsole(
      writeOutput: { text in self.streams.withLock { $0.output += text } },
      writeError: { text in self.streams.withLock { $0.error += text } },
      renderer: TextRenderer(width: 80, glyphs: glyphs), errorStyle: TerminalStyle(colors: false),
      interactive: interactive, showsProgress: false)
  }
}

/// Input lines given up front; after them the input ends. `hold` makes reads wait until
/// cancelled instead of ending.
final class TextScriptedLines: LineSource {
  private struct Queue {
    var lines: [String]
    var waiting: CheckedContinuation<LineRead, Never>?
  }
  private let queue: Mutex<Queue>
  private let hold: Bool

  init(_ lines: [String], hold: Bool = false) {
    queue = Mutex(Queue(lines: lines))
    self.hold = hold
  }

  func nextLine() async -> LineRead {
    await withCheckedContinuation { continuation in
      let read: LineRead? = queue.withLock { q in
        if !q.lines.isEmpty { return .line(q.lines.removeFirst()) }
        guard hold else { return .end }
        q.waiting = continuation
        return nil
      }
      if let read { continuation.resume(returning: read) }
    }
  }

  func cancel() {
    let waiting = queue.withLock { q -> CheckedContinuation<LineRead, Never>? in
      defer { q.waiting = nil }
      return q.waiting
    }
    waiting?.resume(returning: .cancelled)
  }
}
