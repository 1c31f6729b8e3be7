import SusiCore
import SusiCrypto
import SusiHTTPClient
import SusiHTTPTypes
import Synchronization

// When to send a request again: the policy and its jittered backoff, which outcomes may be
// sent again, the server's `Retry-After`, and the random source of the jitter.

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

/// Reads a `Retry-After` header (RFC 9110 §10.2.3): a number of seconds, or an HTTP-date.
enum RetryAfter {
  /// The wait the header asks for, in milliseconds from `now` (never negative), or nil when
  /// the value is neither form.
  static func milliseconds(_ value: String, now: Timestamp) -> Int64? {
    let text = value.trimmingSpaces()
    if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
      guard text.utf8.count <= 12, let seconds = Int64(text) else { return Int64.max }
      return seconds * 1000
    }
    guard let date = httpDate(text) else { return nil }
    return max(0, date.milliseconds - now.milliseconds)
  }

  private static let months = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
  ]

  /// Parses the three HTTP-date forms: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the
  /// obsolete RFC 850 form (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime
  /// (`Sun Nov  6 08:49:37 1994`).
  static func httpDate(_ text: String) -> Timestamp? {
    let words = text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
    var day: Int?
    var month: Int?
    var year: Int?
    var time: String?
    switch words.count {
    case 6 where words[5] == "GMT":  // IMF-fixdate
      day = Int(words[1])
      month = monthNumber(words[2])
      year = Int(words[3])
      time = words[4]
    case 4 where words[3] == "GMT":  // RFC 850
      let parts = words[1].split(separator: "-").map(String.init)
      guard parts.count == 3, let shortYear = Int(parts[2]) else { return nil }
      day = Int(parts[0])
      month = monthNumber(parts[1])
      year =
        parts[2].count == 4 ? shortYear : (shortYear < 70 ? 2000 + shortYear : 1900 + shortYear)
      time = words[2]
    case 5:  // asctime
      month = monthNumber(words[1])
      day = Int(words[2])
      time = words[3]
      year = Int(words[4])
    default:
      return nil
    }
    guard let day, let month, let year, let time, (1...31).contains(day), (0...9999).contains(year)
    else { return nil }
    func pad(_ value: Int, _ width: Int) -> String {
      let digits = String(value)
      return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
    return Timestamp(rfc3339: "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(time)Z")
  }

  private static func monthNumber(_ name: String) -> Int? {
    months.firstIndex(of: name.lowercased()).map { $0 + 1 }
  }
}

/// A seedable random number source shared by every task of a runner: good enough for spreading
/// retries. A fixed seed makes every backoff of a test run predictable; without one the seed
/// comes from the operating system.
final class RandomSource: Sendable {
  private let generator: Mutex<SeededRandom>

  init(seed: UInt64?) {
    let initial =
      seed
      ?? Digest.randomBytes(8).reduce(UInt64(0)) { ($0 << 8) | UInt64($1) }
    generator = Mutex(SeededRandom(seed: initial))
  }

  /// The next 64 random bits.
  func next() -> UInt64 {
    generator.withLock { $0.next() }
  }

  /// A uniformly random value in `0...bound` (0 when `bound` is not positive).
  func next(upTo bound: Int64) -> Int64 {
    guard bound > 0 else { return 0 }
    let range = UInt64(bound) + 1
    // Rejection sampling keeps the distribution uniform.
    let limit = UInt64.max - UInt64.max % range
    while true {
      let value = next()
      if value < limit { return Int64(value % range) }
    }
  }
}
