/// Everything a client shows, rebuilt exactly by replaying the log through `reduce`.
///
/// The state knows who is logged in, never the token; it holds no clock readings except those
/// that arrived in events.
public struct State: Equatable, Sendable {
  /// The SUSI server: an absolute URL, or `embedded` for the built-in server.
  public var server: String = State.embeddedServer
  /// Who is logged in, or nil.
  public var session: Session?
  /// Skill group names, in the order the server listed them.
  public var groups: [String] = []
  /// Skills by group, then by skill tag.
  public var skills: [String: [String: Skill]] = [:]
  /// The logged-in user's own ratings; `stars == nil` means "not rated yet".
  public var userRatings: [SkillID: UserRating] = [:]
  /// User settings as last confirmed by the server.
  public var settings: [String: SettingValue] = [:]
  /// This client's chat, oldest first.
  public var transcript: [ChatEntry] = []
  /// The server's memory of past chats (`memory.json`), newest first.
  public var history: [HistoryEntry] = []
  /// How many older exchanges the server still holds, when known.
  public var historyRemaining: Int?
  /// Web-search results by query.
  public var searches: [String: [SearchResult]] = [:]
  /// Link previews by URL.
  public var linkPreviews: [String: LinkPreview] = [:]
  /// Images in the on-disk cache, by URL.
  public var images: [String: CachedImage] = [:]
  /// Requests that have been asked for and not yet answered, by the seq of the asking event.
  public var inFlight = InFlightRequests()
  /// The last error of each kind of request (by intent type), cleared by its next success.
  public var lastErrors: [String: RequestError] = [:]
  /// Who may do what through the webhook frontend: groups, privileges and keys.
  public var access = AccessControl()

  /// The version of what the reducer makes of events. Bump it with any change that makes the same
  /// log replay to a different state: snapshots record it, and one made by another version is
  /// ignored (the next start replays the whole log once and writes a new one). A new intent is
  /// not such a change: its privilege joins the `admin` group's, which a snapshot's reading
  /// gives every privilege there is.
  public static let reducerVersion = 5

  /// The `server` value that means the built-in server.
  public static let embeddedServer = "embedded"

  public init() {}
}

/// Who is logged in.
public struct Session: Equatable, Sendable {
  public var email: String
  /// When the server stops accepting the token; nil = never.
  public var expiresAt: Timestamp?
  public var since: Timestamp
  public init(email: String, expiresAt: Timestamp?, since: Timestamp) {
    self.email = email
    self.expiresAt = expiresAt
    self.since = since
  }

  /// True when the token has expired at `moment`.
  public func isExpired(at moment: Timestamp) -> Bool { expiresAt.map { $0 <= moment } ?? false }
}

/// The user's own rating of a skill.
public struct UserRating: Equatable, Sendable {
  /// 1…5, or nil when the user has not rated the skill.
  public var stars: Int?
  public init(stars: Int?) { self.stars = stars }
}

/// A request that has been asked for and not yet answered.
public struct InFlightRequest: Equatable, Sendable {
  /// What asked: an intent (`loadSkills`), or the wait for a planned answer.
  public var type: RequestType
  /// When it was asked for.
  public var since: Timestamp
  // Optional members are spelled `Optional<…>` to spare a copy of the whole value per one made
  // (see `Event`).
  /// What it is about, for display and for superseding: a newer request with the same key
  /// cancels the older one (`loadSkills:Knowledge`).
  public var key: Optional<String>
  /// When a planned answer is due (its delay counted from `since`); nil for other requests.
  public var due: Optional<Timestamp>
  /// For a planned answer: the answer awaited (its delay counted from `since`), then those
  /// planned after it, each delay counted from the delivery before it. Empty for other requests.
  public var plan: [PlannedAnswer]
  public init(
    type: RequestType, since: Timestamp, key: String? = nil, due: Timestamp? = nil,
    plan: [PlannedAnswer] = []
  ) {
    self.type = type
    self.since = since
    self.key = key
    self.due = due
    self.plan = plan
  }

  /// The intent that asked for this request; nil for a planned answer.
  public var intent: ActionType? {
    if case .intent(let type) = type { return type }
    return nil
  }

  /// Whether this is the wait for a planned answer.
  public var isPlannedAnswer: Bool { type == .plannedAnswer }
}

/// What a request in flight is for. Its name (`rawValue`) is what the state's JSON holds; a name
/// this version does not know (a snapshot written by a newer one) is kept as it is.
public enum RequestType: Hashable, Sendable, CustomStringConvertible,
  ExpressibleByStringLiteral
{
  /// Asked for by an intent of this type.
  case intent(ActionType)
  /// The wait for a planned answer, which no intent of its own asked for.
  case plannedAnswer
  /// A name this version does not know.
  case other(String)

  public init(rawValue: String) {
    if rawValue == "plannedAnswer" {
      self = .plannedAnswer
    } else if let type = ActionType(rawValue: rawValue) {
      self = .intent(type)
    } else {
      self = .other(rawValue)
    }
  }

  public init(stringLiteral name: String) { self.init(rawValue: name) }

  public var rawValue: String {
    switch self {
    case .intent(let type): type.rawValue
    case .plannedAnswer: "plannedAnswer"
    case .other(let name): name
    }
  }

  public var description: String { rawValue }
}
