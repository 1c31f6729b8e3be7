import Foundation
import SusiJSON
import Synchronization

/// The DevTools protocol over a `ChromiumProcess`'s pipe: commands (each with an id, answered
/// once, or failed at its deadline) and the events the browser sends, kept for the tests to read.
final class ChromiumConnection: Sendable {
  /// One event the browser sent.
  struct Event: Sendable {
    var session: String?
    var method: String
    var params: JSON
  }

  private struct Calls {
    var nextID = 1
    var pending: [Int: CheckedContinuation<JSON, any Error>] = [:]
    var closed = false
  }

  let process: ChromiumProcess
  private let calls = Mutex(Calls())
  private let received = Mutex<[Event]>([])

  /// Starts a browser and connects to it.
  init() throws {
    process = try ChromiumProcess()
    process.startReading(
      { [weak self] in self?.receive($0) },
      ended: { [weak self] in self?.closeAll() })
  }

  /// Sends `method` and returns its result; fails with the browser's error, or when no answer
  /// came within `timeout`.
  func call(
    _ method: String, _ params: JSONObject = [:], session: String? = nil,
    timeout: Duration = .seconds(40)
  ) async throws -> JSON {
    let id = calls.withLock { calls in
      defer { calls.nextID += 1 }
      return calls.nextID
    }
    var members: [(String, JSON)] = [
      ("id", .int(id)), ("method", .string(method)), ("params", .object(params)),
    ]
    if let session { members.append(("sessionId", .string(session))) }
    let bytes = JSON.object(JSONObject(members)).compactBytes
    let deadline = Task { [weak self] in
      try await Task.sleep(for: timeout)
      self?.finish(id, .failure(ChromiumError("\(method) got no answer within \(timeout)")))
    }
    defer { deadline.cancel() }
    return try await withCheckedThrowingContinuation { continuation in
      let accepted = calls.withLock { calls in
        guard !calls.closed else { return false }
        calls.pending[id] = continuation
        return true
      }
      guard accepted else {
        continuation.resume(throwing: ChromiumError("the browser has ended: \(process.output)"))
        return
      }
      do {
        try process.send(bytes)
      } catch {
        finish(id, .failure(error))
      }
    }
  }

  /// The events received so far for `session` named `method`, oldest first.
  func events(_ method: String, session: String?) -> [JSON] {
    received.withLock { events in
      events.filter { $0.method == method && $0.session == session }.map(\.params)
    }
  }

  private func finish(_ id: Int, _ result: Result<JSON, any Error>) {
    let continuation = calls.withLock { $0.pending.removeValue(forKey: id) }
    continuation?.resume(with: result)
  }

  private func receive(_ bytes: [UInt8]) {
    guard let message = try? JSONParser.parse(bytes) else { return }
    if let id = message["id"]?.int {
      if let error = message["error"] {
        let text = error["message"]?.string ?? error.compactText
        finish(id, .failure(ChromiumError("the browser refused: \(text)")))
      } else {
        finish(id, .success(message["result"] ?? .null))
      }
    } else if let method = message["method"]?.string {
      let event = Event(
        session: message["sessionId"]?.string, method: method, params: message["params"] ?? .null)
      received.withLock { $0.append(event) }
    }
  }

  private func closeAll() {
    let waiting = calls.withLock { calls in
      calls.closed = true
      defer { calls.pending = [:] }
      return Array(calls.pending.values)
    }
    for continuation in waiting {
      continuation.resume(throwing: ChromiumError("the browser has ended"))
    }
  }
}
