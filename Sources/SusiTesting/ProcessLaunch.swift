import Foundation
import Synchronization

/// Starts child processes one at a time. Foundation's `Process.run` on Linux is not safe when
/// several threads call it at once: under a full parallel test run it crashed copying its
/// arguments and, once, on an interrupted system call. Every test that starts a process goes
/// through here.
public enum ProcessLaunch {
  private static let lock = Mutex(())

  /// Runs `process.run()` while no other test is starting one.
  public static func run(_ process: Process) throws {
    try lock.withLock { _ in try process.run() }
  }
}
