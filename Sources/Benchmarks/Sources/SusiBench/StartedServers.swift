// What a benchmark run started outside its own process, and how Ctrl-C stops it.

import Foundation
import Synchronization

/// What the run started and has not stopped yet (PostgreSQL clusters, `susi serve` nodes), each
/// with how to stop it: they run detached from the terminal, so Ctrl-C would leave them running.
/// A stop runs under this lock, so an interruption's handler waits for a stop under way rather
/// than ending the process in the middle of it.
let startedServers = Mutex<[String: @Sendable () -> Void]>([:])

/// Stops what the run started under `key`, once: whoever takes it from `startedServers` first
/// stops it (a benchmark's own cleanup, or the handler of an interruption).
func stopStartedServer(_ key: String) {
  startedServers.withLock { $0.removeValue(forKey: key)?() }
}

/// Makes Ctrl-C and SIGTERM stop what the run started, then end the process as the signal asks;
/// keep the sources it returns.
func stopStartedServersWhenInterrupted() -> [any DispatchSourceSignal] {
  [SIGINT, SIGTERM].map { number in
    signal(number, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
    source.setEventHandler {
      startedServers.withLock { started in
        for stop in started.values { stop() }
        exit(128 + number)
      }
    }
    source.resume()
    return source
  }
}
