import SusiHTTPClient
import SusiHTTPTypes

/// When and how long to wait before sending a request again.
///
/// Backoff is "full jitter" (AWS Architecture Blog, *Exponential Backoff And Jitter*): before
/// retry number `n` (0-based) the runner waits a uniformly random time in
/// `0...min(maximumDelay, baseDelay · 2ⁿ)`. A `Retry-After` from the server raises that wait to
/// at least what the server asked for; a server asking for more than `maximumRetryAfter` is not
/// retried at all, since waiting less would only earn another refusal.
public struct RetryPolicy: Sendable, Equatable {
  /// Attempts in total, the first included; 1 means never retry.
  public var maximumAttempts: Int
  /// The backoff ceiling before the first retry, in milliseconds.
  public var baseDelayMilliseconds: Int64
  /// The largest backoff ceiling, in milliseconds.
  public var maximumDelayMilliseconds: Int64
  /// The longest `Retry-After` the runner is willing to wait, in milliseconds.
  public var maximumRetryAfterMilliseconds: Int64

  /// A policy; the defaults are 3 attempts, 0.5 s base, 20 s cap, 60 s longest `Retry-After`.
  public init(
    maximumAttempts: Int = 3, baseDelayMilliseconds: Int64 = 500,
    maximumDelayMilliseconds: Int64 = 20_000, maximumRetryAfterMilliseconds: Int64 = 60_000
  ) {
    self.maximumAttempts = max(1, maximumAttempts)
    self.baseDelayMilliseconds = max(0, baseDelayMilliseconds)
    self.maximumDelayMilliseconds = max(0, maximumDelayMilliseconds)
    self.maximumRetryAfterMilliseconds = max(0, maximumRetryAfterMilliseconds)
  }

  /// A policy that sends every request once.
  public static let never = RetryPolicy(maximumAttempts: 1)

  /// The upper end of the full-jitter window before retry number `retry` (0-based).
  public func backoffCeiling(retry: Int) -> Int64 {
    var ceiling = baseDelayMilliseconds
    for _ in 0..<max(0, retry) {
      if ceiling >= maximumDelayMilliseconds { break }
      ceiling = ceiling > Int64.max / 2 ? Int64.max : ceiling * 2
    }
    return min(ceiling, maximumDelayMilliseconds)
  }

  /// How long to wait before retry number `retry`, or nil when the server's `Retry-After`
  /// (in milliseconds) is longer than this policy will wait.
  func delay(retry: Int, retryAfter: Int64?, random: RandomSource) -> Int64? {
    let jitter = random.next(upTo: backoffCeiling(retry: retry))
    guard let retryAfter else { return jitter }
    guard retryAfter <= maximumRetryAfterMilliseconds else { return nil }
    return max(retryAfter, jitter)
  }
}

/// Whether a failed attempt may be sent again.
enum Transience: Equatable {
  /// Try again (after backoff), honouring the server's `Retry-After` when it gave one.
  case retryable(retryAfter: String?)
  /// Report the failure as it is.
  case final
}

extension Transience {
  /// Classifies an attempt's outcome for an endpoint that is (or is not) idempotent.
  ///
  /// - Nothing sent (connect or DNS failure): always retryable.
  /// - Sent, then no answer (timeout, reset): the server may have acted, so only an idempotent
  ///   request is sent again.
  /// - 503: SUSI refuses before the servlet runs ("your request frequency is too high"), so
  ///   the request did nothing and may be sent again whatever it is.
  /// - Other 5xx: SUSI's 500s come from exceptions that can follow a write, so only idempotent
  ///   requests are retried.
  /// - 4xx and everything else: final.
  static func of(_ outcome: Result<TransportResponse, TransportError>, idempotent: Bool)
    -> Transience
  {
    switch outcome {
    case .failure(let error):
      switch error {
      case .cannotConnect: return .retryable(retryAfter: nil)
      case .connectionLost, .timedOut, .failed:
        return idempotent ? .retryable(retryAfter: nil) : .final
      // A refused certificate stays refused until someone fixes it.
      case .tooLarge, .cancelled, .invalidURL, .refused, .tls: return .final
      }
    case .success(let response):
      let retryAfter = response.headers["Retry-After"]
      if response.status == 503 { return .retryable(retryAfter: retryAfter) }
      if (500...599).contains(response.status) && idempotent {
        return .retryable(retryAfter: retryAfter)
      }
      return .final
    }
  }
}
