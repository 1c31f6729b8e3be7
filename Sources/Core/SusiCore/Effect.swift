public import SusiJSON

/// Work the reducer asks the effects runner to do. Effects are plain values: tests compare them,
/// replay drops them. Each effect that asks the world for something comes back as exactly one
/// result action whose `cause` is the seq of the event that produced the effect.
///
/// `server` is the state's server (`embedded` or a URL) at the moment of asking, so an effect
/// carries everything the runner needs.
public enum Effect: Equatable, Sendable {
  case signup(server: String, email: String, password: Secret)
  /// Ask the server to mail the account at `email` a link for setting a new password.
  case recoverPassword(server: String, email: String)
  case login(server: String, email: String, password: Secret, validSeconds: Int?)
  /// Drop the token (and tell the server): comes back as `loggedOut {reason}`.
  case logout(server: String, reason: String?)
  case fetchGroups(server: String, language: String)
  /// One group's skills, or every skill in one request when `group` is nil.
  case fetchSkills(server: String, group: String?, language: String)
  case fetchSkill(server: String, group: String, skill: String, language: String)
  case rateSkill(server: String, group: String, skill: String, language: String, stars: Int)
  case fetchUserRating(server: String, group: String, skill: String, language: String)
  /// `effect` (`rateSkill` or `fetchUserRating`) for a skill no loaded list has shown: look it
  /// up first (one metadata request), then do `effect`, whose result carries the skill as
  /// `resolved`. A skill the server does not know ends as `requestFailed {kind: "notFound"}`.
  indirect case resolvingSkill(Effect)
  case storeSettings(server: String, settings: [String: SettingValue])
  case fetchSettings(server: String)
  /// A chat query; `language` nil = the machine's language.
  case chat(server: String, query: String, language: String?)
  /// A page of the server's chat memory, older than `before` (nil = newest).
  case fetchHistory(server: String, before: Timestamp?)
  case webSearch(query: String)
  case fetchLinkPreview(url: String)
  case cacheImage(url: String)
  /// Deliver planned answers after a delay, as `messageReceived`.
  case deliverLater(delayMilliseconds: Int, message: Action.MessageReceived)
  /// Cancel the request of the event with this seq; that request's result reports it.
  case cancel(seq: Int)
  /// Cancel the request of the event with this seq because a newer one asks for the same thing;
  /// that request's result is `requestFailed {kind: "superseded"}`.
  case supersede(seq: Int)
}

extension Effect {
  /// Whether the runner reports a result for this effect: a cancellation reports nothing of its
  /// own (the request it cancels reports its end).
  var owesResult: Bool {
    switch self {
    case .cancel, .supersede: false
    default: true
    }
  }
}

// How the runner performs an effect: `perform(with:)` hands each case to its method of
// `EffectPerforming`, which the runner implements beside the other requests of that domain. A
// new effect is a case here, its line in each switch below and its requirement; the compiler
// then asks the runner for the method.

/// What carries out effects: one method per effect that asks the world for something, each
/// returning the one result action the effect owes (or throwing the failure that becomes
/// `requestFailed`).
public protocol EffectPerforming: Sendable {
  associatedtype Failure: Error
  func signup(server: String, email: String, password: Secret) async throws(Failure) -> Action
  func recoverPassword(server: String, email: String) async throws(Failure) -> Action
  func login(server: String, email: String, password: Secret, validSeconds: Int?)
    async throws(Failure) -> Action
  func logout(server: String, reason: String?) async throws(Failure) -> Action
  func fetchGroups(server: String, language: String) async throws(Failure) -> Action
  func fetchSkills(server: String, group: String?, language: String) async throws(Failure)
    -> Action
  func fetchSkill(server: String, group: String, skill: String, language: String)
    async throws(Failure) -> Action
  func rateSkill(server: String, group: String, skill: String, language: String, stars: Int)
    async throws(Failure) -> Action
  func fetchUserRating(server: String, group: String, skill: String, language: String)
    async throws(Failure) -> Action
  /// Looks the skill `effect` names up first, then performs `effect`.
  func resolvingSkill(_ effect: Effect) async throws(Failure) -> Action
  func storeSettings(server: String, settings: [String: SettingValue]) async throws(Failure)
    -> Action
  func fetchSettings(server: String) async throws(Failure) -> Action
  func chat(server: String, query: String, language: String?) async throws(Failure) -> Action
  func fetchHistory(server: String, before: Timestamp?) async throws(Failure) -> Action
  func webSearch(query: String) async throws(Failure) -> Action
  func fetchLinkPreview(url: String) async throws(Failure) -> Action
  func cacheImage(url: String) async throws(Failure) -> Action
  func deliverLater(delayMilliseconds: Int, message: Action.MessageReceived)
    async throws(Failure) -> Action
}

extension Effect {
  /// The result of this effect as `performer` carries it out.
  public func perform<P: EffectPerforming>(with p: P) async throws(P.Failure) -> Action {
    switch self {
    case .signup(let server, let email, let password):
      return try await p.signup(server: server, email: email, password: password)
    case .recoverPassword(let server, let email):
      return try await p.recoverPassword(server: server, email: email)
    case .login(let server, let email, let password, let validSeconds):
      return try await p.login(
        server: server, email: email, password: password, validSeconds: validSeconds)
    case .logout(let server, let reason):
      return try await p.logout(server: server, reason: reason)
    case .fetchGroups(let server, let language):
      return try await p.fetchGroups(server: server, language: language)
    case .fetchSkills(let server, let group, let language):
      return try await p.fetchSkills(server: server, group: group, language: language)
    case .fetchSkill(let server, let group, let skill, let language):
      return try await p.fetchSkill(server: server, group: group, skill: skill, language: language)
    case .rateSkill(let server, let group, let skill, let language, let stars):
      return try await p.rateSkill(
        server: server, group: group, skill: skill, language: language, stars: stars)
    case .fetchUserRating(let server, let group, let skill, let language):
      return try await p.fetchUserRating(
        server: server, group: group, skill: skill, language: language)
    case .resolvingSkill(let effect):
      return try await p.resolvingSkill(effect)
    case .storeSettings(let server, let settings):
      return try await p.storeSettings(server: server, settings: settings)
    case .fetchSettings(let server):
      return try await p.fetchSettings(server: server)
    case .chat(let server, let query, let language):
      return try await p.chat(server: server, query: query, language: language)
    case .fetchHistory(let server, let before):
      return try await p.fetchHistory(server: server, before: before)
    case .webSearch(let query):
      return try await p.webSearch(query: query)
    case .fetchLinkPreview(let url):
      return try await p.fetchLinkPreview(url: url)
    case .cacheImage(let url):
      return try await p.cacheImage(url: url)
    case .deliverLater(let delay, let message):
      return try await p.deliverLater(delayMilliseconds: delay, message: message)
    case .cancel(let seq), .supersede(let seq):
      // The runner cancels; reaching here means there was nothing to cancel.
      return .actionRejected(Action.ActionRejected(reason: "nothing is in flight for seq \(seq)"))
    }
  }

  /// The SUSI server an effect talks to, when it talks to one.
  public var server: String? {
    switch self {
    case .signup(let server, _, _), .recoverPassword(let server, _), .login(let server, _, _, _),
      .logout(let server, _),
      .fetchGroups(let server, _), .fetchSkills(let server, _, _), .fetchSkill(let server, _, _, _),
      .rateSkill(let server, _, _, _, _), .fetchUserRating(let server, _, _, _),
      .storeSettings(let server, _), .fetchSettings(let server), .chat(let server, _, _),
      .fetchHistory(let server, _):
      server
    case .resolvingSkill(let effect): effect.server
    case .webSearch, .fetchLinkPreview, .cacheImage, .deliverLater, .cancel, .supersede: nil
    }
  }
}

// How an effect is shown (`susi replay --step`): one JSON object named after the effect, holding
// its values, written by the same codecs as the log. Effects never reach the log; secrets show as
// `[redacted]`. Nothing reads this back.

extension Effect {
  /// This effect as `{"name":{fields}}`.
  public func write(to w: inout JSONWriter) {
    w.object { o in
      switch self {
      case .signup(let server, let email, _):
        o.field("signup") {
          $0.object { o in
            o.field("server", server)
            o.field("email", email)
            o.field("password", Secret.redactedText)
          }
        }
      case .recoverPassword(let server, let email):
        o.field("recoverPassword") {
          $0.object { o in
            o.field("server", server)
            o.field("email", email)
          }
        }
      case .login(let server, let email, _, let validSeconds):
        o.field("login") {
          $0.object { o in
            o.field("server", server)
            o.field("email", email)
            o.field("password", Secret.redactedText)
            o.field("validSeconds", validSeconds)
          }
        }
      case .logout(let server, let reason):
        o.field("logout") {
          $0.object { o in
            o.field("server", server)
            o.field("reason", reason.map(Redaction.scrub))
          }
        }
      case .fetchGroups(let server, let language):
        o.field("fetchGroups") {
          $0.object { o in
            o.field("server", server)
            o.field("language", language)
          }
        }
      case .fetchSkills(let server, let group, let language):
        o.field("fetchSkills") {
          $0.object { o in
            o.field("server", server)
            o.field("group", group)
            o.field("language", language)
          }
        }
      case .fetchSkill(let server, let group, let skill, let language):
        o.field("fetchSkill") { $0.skillRequest(server, group, skill, language) }
      case .rateSkill(let server, let group, let skill, let language, let stars):
        o.field("rateSkill") { $0.skillRequest(server, group, skill, language, stars: stars) }
      case .fetchUserRating(let server, let group, let skill, let language):
        o.field("fetchUserRating") { $0.skillRequest(server, group, skill, language) }
      case .resolvingSkill(let effect):
        o.field("resolvingSkill") { effect.write(to: &$0) }
      case .storeSettings(let server, let settings):
        o.field("storeSettings") {
          $0.object { o in
            o.field("server", server)
            o.field("settings") { writeSettings(settings, to: &$0) }
          }
        }
      case .fetchSettings(let server):
        o.field("fetchSettings") { $0.object { o in o.field("server", server) } }
      case .chat(let server, let query, let language):
        o.field("chat") {
          $0.object { o in
            o.field("server", server)
            o.field("query", query)
            o.field("language", language)
          }
        }
      case .fetchHistory(let server, let before):
        o.field("fetchHistory") {
          $0.object { o in
            o.field("server", server)
            o.field("before", before?.rfc3339)
          }
        }
      case .webSearch(let query):
        o.field("webSearch") { $0.object { o in o.field("query", query) } }
      case .fetchLinkPreview(let url):
        o.field("fetchLinkPreview") { $0.object { o in o.field("url", url) } }
      case .cacheImage(let url):
        o.field("cacheImage") { $0.object { o in o.field("url", url) } }
      case .deliverLater(let delay, let message):
        o.field("deliverLater") {
          $0.object { o in
            o.field("delayMilliseconds", delay)
            o.field("message") { Action.messageReceived(message).writePayload(to: &$0) }
          }
        }
      case .cancel(let seq):
        o.field("cancel") { $0.object { o in o.field("seq", seq) } }
      case .supersede(let seq):
        o.field("supersede") { $0.object { o in o.field("seq", seq) } }
      }
    }
  }

  /// This effect in one line of JSON.
  public var compactText: String {
    var w = JSONWriter()
    write(to: &w)
    return String(decoding: w.bytes, as: UTF8.self)
  }
}

extension JSONWriter {
  fileprivate mutating func skillRequest(
    _ server: String, _ group: String, _ skill: String, _ language: String, stars: Int? = nil
  ) {
    object { o in
      o.field("server", server)
      o.field("group", group)
      o.field("skill", skill)
      o.field("language", language)
      o.field("stars", stars)
    }
  }
}
