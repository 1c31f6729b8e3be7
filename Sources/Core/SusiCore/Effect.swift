public import SusiJSON

/// Work the reducer asks the effects runner to do. Effects are plain values: tests compare them,
/// replay drops them. Each effect that asks the world for something comes back as exactly one
/// result action whose `cause` is the seq of the event that produced the effect.
///
/// `server` is the state's server (`embedded` or a URL) at the moment of asking, so an effect
/// carries everything the runner needs.
public enum Effect: Equatable, Sendable {
  case signup(server: String, email: String, password: Secret)
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
