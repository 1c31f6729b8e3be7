import Synchronization

/// A spinner with a label on standard error while something slow happens; drawn only on a
/// terminal, redrawn in place (`\r` + erase to end of line) and erased when done, so it never
/// ends up in a pipe or a log file.
public final class ProgressIndicator: Sendable {
  private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

  /// Starts drawing `label` after `delay` (so fast requests show nothing) unless `enabled` is
  /// false.
  public convenience init(
    _ label: String, after delay: Duration = .milliseconds(400), enabled: Bool, glyphs: Glyphs,
    write: @escaping @Sendable (String) -> Void
  ) {
    self.init(after: delay, enabled: enabled, glyphs: glyphs, write: write) { label }
  }

  /// Starts drawing the label `label` gives, asked again at every frame (a countdown).
  public init(
    after delay: Duration, enabled: Bool, glyphs: Glyphs,
    write: @escaping @Sendable (String) -> Void, label: @escaping @Sendable () -> String
  ) {
    guard enabled else { return }
    let frames = glyphs.spinner
    let drawing = Task {
      do {
        try await Task.sleep(for: delay)
      } catch {
        return
      }
      var frame = 0
      while !Task.isCancelled {
        write("\r\(frames[frame % frames.count]) \(label())\u{1B}[K")
        frame += 1
        do {
          try await Task.sleep(for: .milliseconds(100))
        } catch {
          break
        }
      }
      write("\r\u{1B}[K")
    }
    task.withLock { $0 = drawing }
  }

  /// Stops the spinner and erases its line; returns once the line is erased.
  public func stop() async {
    guard
      let drawing = task.withLock({ current -> Task<Void, Never>? in
        defer { current = nil }
        return current
      })
    else { return }
    drawing.cancel()
    await drawing.value
  }
}
