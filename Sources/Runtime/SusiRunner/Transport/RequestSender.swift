import SusiClock
import SusiCore
import SusiHTTPClient
import SusiStore

/// Sends requests with a deadline and the retry policy: the one place where attempts, backoff
/// and `Retry-After` are decided.
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
  ///   - place: how messages name the destination (a path or host, never a query).
  ///   - policy: overrides the runner's policy for this request.
  ///   - paced: whether calls to this URL's path are spaced by the `PathPacer` (SUSI calls).
  func send(
    _ request: TransportRequest, idempotent: Bool, place: String, policy: RetryPolicy? = nil,
    paced: Bool = false
  ) async throws(RunnerFailure) -> TransportResponse {
    let policy = policy ?? self.policy
    let paceKey = paced ? request.displayURL : nil
    var retry = 0
    while true {
      if Task.isCancelled { throw .cancelled }
      if let paceKey {
        let wait = pacer.reserve(paceKey, now: clock.now().milliseconds)
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
      if let paceKey, case .success(let response) = outcome,
        PathPacer.isFrequencyRefusal(response)
      {
        pacer.refused(paceKey)
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
      case .failure(let error): throw .transport(error, place)
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
