import SusiClock
import SusiCore
import SusiHTTPClient
import SusiStore
import Synchronization

/// Sends requests with a deadline, the retry policy and the pacing of SUSI calls (`PathPacer`,
/// below): the one place where attempts, backoff, `Retry-After` and spacing are decided.
struct RequestSender: Sendable {
  let transport: any HTTPTransport
  let clock: any TimeSource
  let random: RandomSource
  let policy: RetryPolicy
  let pacer: PathPacer
  /// Told of every attempt (`--verbose`): method, URL with secrets masked, status, time.
  var trace: (@Sendable (String) -> Void)? = nil

  /// Sends `request` until it gets a final answer, and returns that answer (which may be an
  /// error status: reading it is the caller's business).
  ///
  /// - Parameters:
  ///   - idempotent: whether the request may be sent again after an attempt whose outcome is
  ///     unknown (see `Transience`).
  ///   - place: how messages name the destination (a path or host, never a query); nil: the
  ///     request's URL without its query (`displayURL`), made only when a message needs it.
  ///   - policy: overrides the runner's policy for this request.
  ///   - paced: whether the `PathPacer` spaces this call (SUSI calls), by its `displayURL`.
  func send(
    _ request: TransportRequest, idempotent: Bool, place: String? = nil,
    policy: RetryPolicy? = nil, paced: Bool = false
  ) async throws(RunnerFailure) -> TransportResponse {
    let policy = policy ?? self.policy
    var retry = 0
    while true {
      if Task.isCancelled { throw .cancelled }
      // The key is made only while the pacer spaces calls at all: not for every chat.
      if paced, pacer.isSpacing {
        let wait = pacer.reserve(request.displayURL, now: clock.now().milliseconds)
        if wait > 0 {
          do { try await clock.sleep(milliseconds: wait) } catch { throw .cancelled }
        }
      }
      let started = ContinuousClock.now
      let outcome = await attempt(request)
      if let trace {
        let elapsed = ContinuousClock.now - started
        let milliseconds =
          elapsed.components.seconds * 1000
          + elapsed.components.attoseconds / 1_000_000_000_000_000
        let result: String
        switch outcome {
        case .success(let response): result = "HTTP \(response.status)"
        case .failure(let error): result = "failed: \(error)"
        }
        trace(
          Redaction.scrub(
            "\(request.method) \(request.url) → \(result) in \(milliseconds) ms"
              + (retry > 0 ? " (attempt \(retry + 1))" : "")))
      }
      if case .failure(.cancelled) = outcome { throw .cancelled }
      if paced, case .success(let response) = outcome, PathPacer.isFrequencyRefusal(response) {
        pacer.refused(request.displayURL)
      }
      if case .retryable(let header) = Transience.of(outcome, idempotent: idempotent),
        retry + 1 < policy.maximumAttempts
      {
        let asked = header.flatMap { RetryAfter.milliseconds($0, now: clock.now()) }
        if let wait = policy.delay(retry: retry, retryAfter: asked, random: random) {
          do { try await clock.sleep(milliseconds: wait) } catch { throw .cancelled }
          retry += 1
          continue
        }
      }
      switch outcome {
      case .success(let response): return response
      case .failure(let error): throw .transport(error, place ?? request.displayURL)
      }
    }
  }

  /// One attempt, cut off after the request's total timeout on the runner's clock (by the
  /// transport itself when it keeps that deadline and the clock is the machine's).
  private func attempt(_ request: TransportRequest) async -> Result<
    TransportResponse, TransportError
  > {
    let transport = transport
    let clock = clock
    // On the machine's clock a transport that keeps the deadline itself needs no timer task
    // beside it: no task group, no timer armed and cancelled per request.
    if clock is SystemTimeSource && transport.keepsTotalTimeout(of: request) {
      do throws(TransportError) {
        return .success(try await transport.send(request))
      } catch {
        return .failure(error)
      }
    }
    let deadline = Int64((request.totalTimeout * 1000).rounded(.up))
    return await withTaskGroup(of: Result<TransportResponse, TransportError>?.self) { group in
      group.addTask {
        do throws(TransportError) {
          return .success(try await transport.send(request))
        } catch {
          return .failure(error)
        }
      }
      group.addTask {
        do {
          try await clock.sleep(milliseconds: deadline)
          return .failure(.timedOut)
        } catch {
          return nil
        }
      }
      var outcome: Result<TransportResponse, TransportError> = .failure(.cancelled)
      for await result in group {
        if let result {
          outcome = result
          break
        }
      }
      group.cancelAll()
      return outcome
    }
  }
}

/// Spaces calls to the same SUSI path so they respect the server's DoS window: the real server
/// answers a host that calls the same servlet again within the window with `503` `your request
/// frequency is too high`, before doing anything.
///
/// The gap is the configured one (0 = none) or, once the server has refused for frequency, a
/// learned one: 250 ms after the first refusal, doubled on each further one, at most 1 s.
final class PathPacer: Sendable {
  private struct Path {
    /// When the next call may go, in the runner clock's milliseconds.
    var nextFree: Int64 = 0
    var learned: Int64 = 0
  }

  /// The configured least gap between two calls to one path, in milliseconds.
  let gap: Int64
  private let paths = Mutex<[String: Path]>([:])
  /// Whether the server has refused a call for frequency yet (a gap was learned).
  private let learnedAny = Atomic<Bool>(false)

  static let firstLearnedGap: Int64 = 250
  static let largestLearnedGap: Int64 = 1000

  init(gap: Int64) { self.gap = max(0, gap) }

  /// False while no call needs spacing (no gap configured, none learned): `reserve` would
  /// answer 0 for every key.
  var isSpacing: Bool { gap > 0 || learnedAny.load(ordering: .relaxed) }

  /// Reserves the next slot for `key` (a server URL and path) at `now`, and returns how long
  /// to wait for it in milliseconds.
  func reserve(_ key: String, now: Int64) -> Int64 {
    paths.withLock { paths in
      let learned = paths[key]?.learned ?? 0
      let interval = max(gap, learned)
      guard interval > 0 else { return 0 }
      var path = paths[key] ?? Path()
      let start = max(now, path.nextFree)
      path.nextFree = start + interval
      paths[key] = path
      return start - now
    }
  }

  /// Notes a frequency refusal for `key`: its calls are spaced further from now on.
  func refused(_ key: String) {
    paths.withLock { paths in
      var path = paths[key] ?? Path()
      path.learned = min(Self.largestLearnedGap, max(Self.firstLearnedGap, path.learned * 2))
      paths[key] = path
    }
    learnedAny.store(true, ordering: .relaxed)
  }

  /// Whether `response` is the SUSI server's refusal for calling a servlet too often.
  static func isFrequencyRefusal(_ response: TransportResponse) -> Bool {
    response.status == 503
      && String(decoding: response.body.prefix(4096), as: UTF8.self).lowercased()
        .contains("frequency is too high")
  }
}
