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
/// login). The domains live in `EffectPerformer+*.swift`.
struct EffectPerformer: Sendable {
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
    switch effect {
    case .signup(let server, let email, let password):
      return try await signup(server: server, email: email, password: password)
    case .login(let server, let email, let password, let validSeconds):
      return try await login(
        server: server, email: email, password: password, validSeconds: validSeconds)
    case .logout(let server, let reason):
      return await logout(server: server, reason: reason)
    case .fetchGroups(let server, _):
      return try await fetchGroups(server: server)
    case .fetchSkills(let server, let group, let language):
      return try await fetchSkills(server: server, group: group, language: language)
    case .fetchSkill(let server, let group, let skill, let language):
      return try await fetchSkill(server: server, group: group, skill: skill, language: language)
    case .rateSkill(let server, let group, let skill, let language, let stars):
      return try await rateSkill(
        server: server, group: group, skill: skill, language: language, stars: stars)
    case .fetchUserRating(let server, let group, let skill, let language):
      return try await fetchUserRating(
        server: server, group: group, skill: skill, language: language)
    case .resolvingSkill(let effect):
      guard let named = effect.namedSkill else { return try await outcome(of: effect) }
      let resolved = try await resolveSkill(
        server: named.server, group: named.group, skill: named.skill, language: named.language)
      return try await outcome(of: effect).carrying(resolved: resolved)
    case .storeSettings(let server, let settings):
      return try await storeSettings(server: server, settings: settings)
    case .fetchSettings(let server):
      return try await fetchSettings(server: server)
    case .chat(let server, let query, let language):
      return try await chat(server: server, query: query, language: language)
    case .fetchHistory(let server, let before):
      return try await fetchHistory(server: server, before: before)
    case .webSearch(let query):
      return try await webSearch(query: query)
    case .fetchLinkPreview(let url):
      return try await linkPreview(url: url)
    case .cacheImage(let url):
      return .imageCached(try await images.image(url).get())
    case .deliverLater(let delay, let message):
      do { try await clock.sleep(milliseconds: Int64(delay)) } catch { throw .cancelled }
      return .messageReceived(message)
    case .cancel(let seq), .supersede(let seq):
      // The runner cancels; reaching here means there was nothing to cancel.
      return .actionRejected(Action.ActionRejected(reason: "nothing is in flight for seq \(seq)"))
    }
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

  /// The SUSI server an effect talks to, when it talks to one.
  var server: String? {
    switch self {
    case .signup(let server, _, _), .login(let server, _, _, _), .logout(let server, _),
      .fetchGroups(let server, _), .fetchSkills(let server, _, _), .fetchSkill(let server, _, _, _),
      .rateSkill(let server, _, _, _, _), .fetchUserRating(let server, _, _, _),
      .storeSettings(let server, _), .fetchSettings(let server), .chat(let server, _, _),
      .fetchHistory(let server, _):
      server
    case .resolvingSkill(let effect): effect.server
    case .webSearch, .fetchLinkPreview, .cacheImage, .deliverLater, .cancel,
      .supersede:
      nil
    }
  }
}
