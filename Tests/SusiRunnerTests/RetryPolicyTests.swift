import SusiCore
import SusiHTTPClient
import SusiHTTPTypes
import Testing

@testable import SusiRunner

/// The pure parts of retrying: ceilings, which outcomes are transient, `Retry-After` parsing.
@Suite struct RetryPolicyTests {
  @Test func theBackoffCeilingDoublesUpToTheCap() {
    let policy = RetryPolicy(baseDelayMilliseconds: 500, maximumDelayMilliseconds: 20_000)
    #expect(
      (0...7).map(policy.backoffCeiling(retry:)) == [
        500, 1000, 2000, 4000, 8000, 16_000, 20_000, 20_000,
      ])
    #expect(policy.backoffCeiling(retry: 10_000) == 20_000)
  }

  @Test func aSeededSourceRepeatsItselfAndStaysInRange() {
    let a = RandomSource(seed: 7)
    let b = RandomSource(seed: 7)
    let first = (0..<100).map { _ in a.next(upTo: 1000) }
    #expect(first == (0..<100).map { _ in b.next(upTo: 1000) })
    #expect(first.allSatisfy { (0...1000).contains($0) })
    #expect(Set(first).count > 50)
    #expect(a.next(upTo: 0) == 0)
  }

  static func response(_ status: Int) -> Result<TransportResponse, TransportError> {
    .success(TransportResponse(status: status))
  }

  @Test func outcomesAreSortedByWhetherTheServerMayHaveActed() {
    #expect(
      Transience.of(.failure(.cannotConnect("x")), idempotent: false) == .retryable(retryAfter: nil)
    )
    #expect(Transience.of(.failure(.connectionLost("x")), idempotent: false) == .final)
    #expect(
      Transience.of(.failure(.connectionLost("x")), idempotent: true) == .retryable(retryAfter: nil)
    )
    #expect(Transience.of(.failure(.timedOut), idempotent: false) == .final)
    #expect(Transience.of(.failure(.timedOut), idempotent: true) == .retryable(retryAfter: nil))
    #expect(Transience.of(.failure(.tooLarge(limit: 1)), idempotent: true) == .final)
    #expect(Transience.of(.failure(.cancelled), idempotent: true) == .final)
    #expect(Transience.of(Self.response(503), idempotent: false) == .retryable(retryAfter: nil))
    #expect(Transience.of(Self.response(500), idempotent: false) == .final)
    #expect(Transience.of(Self.response(502), idempotent: true) == .retryable(retryAfter: nil))
    for status in [200, 301, 400, 401, 404, 422, 429] {
      #expect(Transience.of(Self.response(status), idempotent: true) == .final)
    }
    let busy = TransportResponse(status: 503, headers: ["Retry-After": "5"])
    #expect(Transience.of(.success(busy), idempotent: true) == .retryable(retryAfter: "5"))
  }

  /// Every endpoint the runner calls (each stands beside its requests in the runner).
  static let endpoints: [Endpoint] = [
    Endpoints.login, Endpoints.logout, Endpoints.signup, Endpoints.recoverPassword,
    Endpoints.groups, Endpoints.skillList, Endpoints.skillMetadata, Endpoints.rateSkill,
    Endpoints.userRating, Endpoints.changeSettings, Endpoints.listSettings, Endpoints.chat,
    Endpoints.memory, Endpoints.webSearch, Endpoints.linkPreview, Endpoints.image,
  ]

  @Test func everyEndpointSaysWhetherItIsIdempotentAndWhy() {
    let notIdempotent = Self.endpoints.filter { !$0.idempotent }.map(\.path)
    #expect(
      notIdempotent == [
        "/aaa/login.json", "/aaa/signup.json", "/aaa/recoverpassword.json", "/susi/chat.json",
      ])
    #expect(Self.endpoints.allSatisfy { !$0.why.isEmpty })
    let posts = Self.endpoints.filter { $0.method == .post }.map(\.path)
    #expect(
      posts == [
        "/aaa/login.json", "/aaa/login.json", "/aaa/signup.json", "/aaa/recoverpassword.json",
        "/cms/fiveStarRateSkill.json", "/aaa/changeUserSettings.json",
      ])
  }

  static let now = Timestamp(rfc3339: "1994-11-06T08:49:30Z")!

  @Test func retryAfterReadsSecondsAndAllThreeDateForms() {
    #expect(RetryAfter.milliseconds("120", now: Self.now) == 120_000)
    #expect(RetryAfter.milliseconds(" 0 ", now: Self.now) == 0)
    #expect(RetryAfter.milliseconds("Sun, 06 Nov 1994 08:49:37 GMT", now: Self.now) == 7000)
    #expect(RetryAfter.milliseconds("Sunday, 06-Nov-94 08:49:37 GMT", now: Self.now) == 7000)
    #expect(RetryAfter.milliseconds("Sun Nov  6 08:49:37 1994", now: Self.now) == 7000)
    #expect(RetryAfter.milliseconds("Sun, 06 Nov 1994 08:00:00 GMT", now: Self.now) == 0)
  }

  @Test func retryAfterIgnoresWhatItCannotRead() {
    for bad in [
      "", "soon", "-5", "1.5", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT",
    ] {
      #expect(RetryAfter.milliseconds(bad, now: Self.now) == nil, "\(bad)")
    }
    #expect(RetryAfter.milliseconds("99999999999999999999", now: Self.now) == Int64.max)
  }
}
