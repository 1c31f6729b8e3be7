import Foundation
import SusiClock
import SusiCore
import SusiHTTPClient
import SusiHTTPTypes
import SusiJSON
import SusiStore

/// Performs one effect and turns its outcome into the one result action it owes.
///
/// Each `Effect` case maps to a result (see `Effect` and the reducer): success to its
/// past-tense action, any failure to `requestFailed {cause, error}` (`loginFailed` for a
/// login). `Effect.perform(with:)` hands each effect to its method, which lives with its domain
/// in `EffectPerformer+*.swift`.
struct EffectPerformer: EffectPerforming {
  typealias Failure = RunnerFailure

  let sender: RequestSender
  let credentials: CredentialsStore
  let images: ImageCache
  let clock: any TimeSource
  let limits: RequestLimits
  let embeddedServerURL: String?
  let websearchURL: String
  let timeouts: Timeouts
  let timezoneOffsetMinutes: Int
  let machineLanguage: String
  let deviceType: String
  /// Where link previews may go.
  let targets: TargetPolicy

  /// The result action for `effect`, asked for by the event with seq `cause`.
  func perform(_ effect: Effect, cause: Int) async -> Action {
    do throws(RunnerFailure) {
      return try await outcome(of: effect)
    } catch {
      var failure = error
      failure.message = withoutSecrets(failure.message, of: effect)
      if case .login(_, let email, _, _) = effect, failure.kind != .cancelled {
        return .loginFailed(Action.LoginFailed(email: email, error: failure.requestError))
      }
      return .requestFailed(Action.RequestFailed(cause: cause, error: failure.requestError))
    }
  }

  /// `message` with the effect's password and the server's token blanked out: a server may
  /// echo what it was sent in an error page, and results go to the log.
  private func withoutSecrets(_ message: String, of effect: Effect) -> String {
    var secrets: [String] = []
    switch effect {
    case .login(let server, _, let password, _), .signup(let server, _, let password):
      secrets.append(password.reveal())
      secrets += (try? credentials.load(server: server)).flatMap { $0.map { [$0.token] } } ?? []
    default:
      if let server = effect.server {
        secrets += (try? credentials.load(server: server)).flatMap { $0.map { [$0.token] } } ?? []
      }
    }
    var out = message
    for secret in secrets where secret.count >= 4 {
      for form in Self.spellings(of: secret) {
        out = out.replacingOccurrences(of: form, with: Secret.redactedText)
      }
    }
    return out
  }

  /// The ways a server may echo a secret it was sent: as is, percent-encoded as we send it,
  /// with `+` for spaces as forms have it, and with lower-case hex digits; longest first, so
  /// no part of a longer spelling is left behind.
  static func spellings(of secret: String) -> [String] {
    let encoded = URLEncodedForm.percentEncode(secret)
    var lowerHex = ""
    var rest = Substring(encoded)
    while let percent = rest.firstIndex(of: "%") {
      lowerHex += rest[..<percent]
      let escape = rest[percent...].prefix(3)
      lowerHex += escape.lowercased()
      rest = rest[escape.endIndex...]
    }
    lowerHex += rest
    let forms = [
      secret, encoded, encoded.replacingOccurrences(of: "%20", with: "+"), lowerHex,
      lowerHex.replacingOccurrences(of: "%20", with: "+"),
    ]
    return Array(Set(forms)).sorted { $0.count > $1.count }
  }

  private func outcome(of effect: Effect) async throws(RunnerFailure) -> Action {
    try await effect.perform(with: self)
  }

  // MARK: Shared plumbing

  /// The base URL of `server`: the embedded server's, or the URL itself without a trailing
  /// slash.
  func baseURL(_ server: String) throws(RunnerFailure) -> String {
    var base = server
    if server == State.embeddedServer {
      guard let embedded = embeddedServerURL else {
        throw RunnerFailure(
          .network,
          "the embedded server is not running; start it, or choose a server with --server URL")
      }
      base = embedded
    }
    while base.hasSuffix("/") { base.removeLast() }
    return base
  }

  /// Calls a SUSI endpoint and returns the reply's JSON object (or the failure it stands for).
  func call(_ call: APICall, base: String, policy: RetryPolicy? = nil, totalTimeout: Double? = nil)
    async throws(RunnerFailure) -> JSONObject
  {
    var limits = limits
    if let totalTimeout { limits.totalTimeout = totalTimeout }
    let request = call.request(base: base, limits: limits)
    let place = call.endpoint.path
    // A request that never got a reply names the whole address: which server it was matters.
    let response = try await sender.send(
      request, idempotent: call.endpoint.idempotent, place: request.displayURL, policy: policy,
      paced: true)
    return try ReplyReader.object(response, endpoint: call.endpoint, place: place)
  }

  /// The token for an endpoint that needs a logged-in user. No token means no request
  /// (`notLoggedIn`); an expired one is not sent (`unauthorized`, so the session ends).
  func userToken(_ server: String) throws(RunnerFailure) -> String {
    guard let stored = try credentials.load(server: server) else {
      throw RunnerFailure(.notLoggedIn, "nobody is logged in to this server; log in first")
    }
    if stored.isExpired(at: clock.now()) {
      throw RunnerFailure(
        .unauthorized,
        "the session of \(stored.email) expired at \(stored.expiresAt.map(\.rfc3339) ?? "?"); log in again"
      )
    }
    return stored.token
  }

  /// The token to send when there is a live one, and whether any token (even an expired one)
  /// is held: the server answering anonymously then means the session has ended.
  func optionalToken(_ server: String) throws(RunnerFailure) -> (token: String?, held: Bool) {
    guard let stored = try credentials.load(server: server) else { return (nil, false) }
    return (stored.isExpired(at: clock.now()) ? nil : stored.token, true)
  }
}

extension Effect {
  /// The skill a skill effect names, and where and in which language.
  var namedSkill: (server: String, group: String, skill: String, language: String)? {
    switch self {
    case .fetchSkill(let server, let group, let skill, let language),
      .rateSkill(let server, let group, let skill, let language, _),
      .fetchUserRating(let server, let group, let skill, let language):
      (server, group, skill, language)
    default: nil
    }
  }
}
