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
