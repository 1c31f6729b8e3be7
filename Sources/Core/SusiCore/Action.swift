import SusiJSON

/// Everything that can happen in susi. Intents (imperative) come from frontends; results (past
/// tense) come only from the effects runner. Each case's `type` (`ActionType`) has the case's name.
///
/// Payload field names are an external contract: add fields, never rename.
public enum Action: Equatable, Sendable {
  // MARK: Intents
  case setServer(SetServer)
  case signup(Signup)
  case login(Login)
  case logout
  case loadGroups(LoadGroups)
  case loadSkills(LoadSkills)
  case loadSkill(LoadSkill)
  case submitRating(SubmitRating)
  case loadUserRating(LoadUserRating)
  case changeSettings(ChangeSettings)
  case syncSettings
  case sendMessage(SendMessage)
  case loadHistory(LoadHistory)
  case search(Search)
  case loadLinkPreview(LoadLinkPreview)
  case cacheImage(CacheImage)
  case cancelRequest(CancelRequest)
  case createAccessGroup(CreateAccessGroup)
  case grantPrivilege(GrantPrivilege)
  case revokePrivilege(RevokePrivilege)
  case issueKey(IssueKey)
  case revokeKey(RevokeKey)

  // MARK: Results
  case serverChanged(ServerChanged)
  case signedUp(SignedUp)
  case loggedIn(LoggedIn)
  case loginFailed(LoginFailed)
  case loggedOut(LoggedOut)
  case groupsLoaded(GroupsLoaded)
  case skillsLoaded(SkillsLoaded)
  // Large payloads are boxed, so that every other action (and every event) stays small to copy.
  indirect case skillLoaded(SkillLoaded)
  indirect case ratingSubmitted(RatingSubmitted)
  indirect case userRatingLoaded(UserRatingLoaded)
  case settingsChanged(SettingsChanged)
  case settingsSynced(SettingsSynced)
  case messageReceived(MessageReceived)
  case historyLoaded(HistoryLoaded)
  case websearchLoaded(WebsearchLoaded)
  case linkPreviewLoaded(LinkPreviewLoaded)
  case imageCached(ImageCached)
  case requestFailed(RequestFailed)
  case actionRejected(ActionRejected)
}

extension Action {
  /// Whether an action is asked for (intent) or reports what happened (result).
  public enum Kind: Sendable { case intent, result }

  public var kind: Kind { type.kind }

  /// The type of this action; its raw value is the `type` name in the log and on the wire.
  public var type: ActionType {
    switch self {
    case .setServer: .setServer
    case .signup: .signup
    case .login: .login
    case .logout: .logout
    case .loadGroups: .loadGroups
    case .loadSkills: .loadSkills
    case .loadSkill: .loadSkill
    case .submitRating: .submitRating
    case .loadUserRating: .loadUserRating
    case .changeSettings: .changeSettings
    case .syncSettings: .syncSettings
    case .sendMessage: .sendMessage
    case .loadHistory: .loadHistory
    case .search: .search
    case .loadLinkPreview: .loadLinkPreview
    case .cacheImage: .cacheImage
    case .cancelRequest: .cancelRequest
    case .createAccessGroup: .createAccessGroup
    case .grantPrivilege: .grantPrivilege
    case .revokePrivilege: .revokePrivilege
    case .issueKey: .issueKey
    case .revokeKey: .revokeKey
    case .serverChanged: .serverChanged
    case .signedUp: .signedUp
    case .loggedIn: .loggedIn
    case .loginFailed: .loginFailed
    case .loggedOut: .loggedOut
    case .groupsLoaded: .groupsLoaded
    case .skillsLoaded: .skillsLoaded
    case .skillLoaded: .skillLoaded
    case .ratingSubmitted: .ratingSubmitted
    case .userRatingLoaded: .userRatingLoaded
    case .settingsChanged: .settingsChanged
    case .settingsSynced: .settingsSynced
    case .messageReceived: .messageReceived
    case .historyLoaded: .historyLoaded
    case .websearchLoaded: .websearchLoaded
    case .linkPreviewLoaded: .linkPreviewLoaded
    case .imageCached: .imageCached
    case .requestFailed: .requestFailed
    case .actionRejected: .actionRejected
    }
  }
}

// MARK: - Intent payloads

extension Action {
  /// Use another SUSI server: an absolute `http(s)` URL, or `embedded` for the built-in one.
  public struct SetServer: Equatable, Sendable {
    public var url: String
    public init(url: String) { self.url = url }
  }

  /// Create an account on the server.
  public struct Signup: Equatable, Sendable {
    public var email: String
    public var password: Secret
    public init(email: String, password: Secret) {
      self.email = email
      self.password = password
    }
  }

  /// Log in; the password never reaches the log (see `Secret`).
  public struct Login: Equatable, Sendable {
    public var email: String
    public var password: Secret
    /// How long the token should live; the server's default is 7 days, -1 is forever.
    public var validSeconds: Int?
    public init(email: String, password: Secret, validSeconds: Int? = nil) {
      self.email = email
      self.password = password
      self.validSeconds = validSeconds
    }
  }

  public struct LoadGroups: Equatable, Sendable {
    public var language: String?
    public init(language: String? = nil) { self.language = language }
  }

  /// Load one group's skills, or every skill (in one request) when `group` is nil.
  public struct LoadSkills: Equatable, Sendable {
    public var group: String?
    public var language: String?
    public init(group: String? = nil, language: String? = nil) {
      self.group = group
      self.language = language
    }
  }

  /// One skill to read: its details (`loadSkill`) or the user's own rating of it
  /// (`loadUserRating`).
  public struct SkillLookup: Equatable, Sendable {
    public var group: String
    public var skill: String
    public var language: String?
    public init(group: String, skill: String, language: String? = nil) {
      self.group = group
      self.skill = skill
      self.language = language
    }
  }

  public typealias LoadSkill = SkillLookup

  public struct SubmitRating: Equatable, Sendable {
    public var group: String
    public var skill: String
    public var stars: Int
    public var language: String?
    public init(group: String, skill: String, stars: Int, language: String? = nil) {
      self.group = group
      self.skill = skill
      self.stars = stars
      self.language = language
    }
  }

  public typealias LoadUserRating = SkillLookup

  /// Change settings on the server; several keys go in one call.
  public struct ChangeSettings: Equatable, Sendable {
    public var settings: [String: SettingValue]
    public init(settings: [String: SettingValue]) { self.settings = settings }
  }

  public struct SendMessage: Equatable, Sendable {
    public var query: String
    /// The query's language; nil = the user's preferred language, else the machine's.
    public var language: String?
    public init(query: String, language: String? = nil) {
      self.query = query
      self.language = language
    }
  }

  /// Load the next page of the server's memory of this user's chats.
  public struct LoadHistory: Equatable, Sendable {
    public init() {}
  }

  public struct Search: Equatable, Sendable {
    public var query: String
    public init(query: String) { self.query = query }
  }

  public struct LoadLinkPreview: Equatable, Sendable {
    public var url: String
    public init(url: String) { self.url = url }
  }

  public struct CacheImage: Equatable, Sendable {
    public var url: String
    public init(url: String) { self.url = url }
  }

  /// Cancel the request started by the intent with this seq.
  public struct CancelRequest: Equatable, Sendable {
    public var seq: Int
    public init(seq: Int) { self.seq = seq }
  }
}

// MARK: - Result payloads

extension Action {
  public struct ServerChanged: Equatable, Sendable {
    public var url: String
    public init(url: String) { self.url = url }
  }

  public struct SignedUp: Equatable, Sendable {
    public var email: String
    /// The server's message (it says whether a verification mail was sent).
    public var message: String
    public init(email: String, message: String) {
      self.email = email
      self.message = message
    }
  }

  public struct LoggedIn: Equatable, Sendable {
    public var email: String
    /// When the token stops working; nil when it never expires.
    public var expiresAt: Timestamp?
    public init(email: String, expiresAt: Timestamp?) {
      self.email = email
      self.expiresAt = expiresAt
    }
  }

  public struct LoginFailed: Equatable, Sendable {
    public var email: String
    public var error: RequestError
    public init(email: String, error: RequestError) {
      self.email = email
      self.error = error
    }
  }

  public struct LoggedOut: Equatable, Sendable {
    /// Why, when it was not the user's choice (e.g. the session expired).
    public var reason: String?
    public init(reason: String? = nil) { self.reason = reason }
  }

  public struct GroupsLoaded: Equatable, Sendable {
    public var groups: [String]
    public init(groups: [String]) { self.groups = groups }
  }

  /// Skills of one group, or of every group (`group == nil`, each skill carrying its group).
  public struct SkillsLoaded: Equatable, Sendable {
    public var group: String?
    public var skills: [Skill]
    public init(group: String?, skills: [Skill]) {
      self.group = group
      self.skills = skills
    }
  }

  public struct SkillLoaded: Equatable, Sendable {
    public var skill: Skill
    public init(skill: Skill) { self.skill = skill }
  }

  public struct RatingSubmitted: Equatable, Sendable {
    public var group: String
    public var skill: String
    public var stars: Int
    /// The skill's aggregate after the rating (what the server replies).
    public var ratings: RatingAggregate
    /// The skill as the runner looked it up, when it was not loaded before.
    public var resolved: Skill?
    public init(
      group: String, skill: String, stars: Int, ratings: RatingAggregate, resolved: Skill? = nil
    ) {
      self.group = group
      self.skill = skill
      self.stars = stars
      self.ratings = ratings
      self.resolved = resolved
    }
  }

  public struct UserRatingLoaded: Equatable, Sendable {
    public var group: String
    public var skill: String
    /// The user's own stars; nil when the user has not rated the skill.
    public var stars: Int?
    /// The skill as the runner looked it up, when it was not loaded before.
    public var resolved: Skill?
    public init(group: String, skill: String, stars: Int?, resolved: Skill? = nil) {
      self.group = group
      self.skill = skill
      self.stars = stars
      self.resolved = resolved
    }
  }

  public struct SettingsChanged: Equatable, Sendable {
    public var settings: [String: SettingValue]
    public init(settings: [String: SettingValue]) { self.settings = settings }
  }

  public struct SettingsSynced: Equatable, Sendable {
    public var settings: [String: SettingValue]
    public init(settings: [String: SettingValue]) { self.settings = settings }
  }

  /// SUSI's answer to a query: every action of the answer, in order.
  public struct MessageReceived: Equatable, Sendable {
    public var query: String
    public var answers: [AnswerAction]
    /// The answering skill's server path, when the server names it.
    public var skill: String?
    /// Answers planned for later, soonest first; the runner delivers each after its delay.
    public var planned: [PlannedAnswer]
    /// The server replied as if nobody were logged in (`session.identity.anonymous`).
    public var anonymous: Bool?
    public init(
      query: String, answers: [AnswerAction], skill: String? = nil,
      planned: [PlannedAnswer] = [], anonymous: Bool? = nil
    ) {
      self.query = query
      self.answers = answers
      self.skill = skill
      self.planned = planned
      self.anonymous = anonymous
    }
  }

  public struct HistoryLoaded: Equatable, Sendable {
    /// Exchanges, newest first, as the server sends them.
    public var entries: [HistoryEntry]
    /// How many older exchanges the server still holds.
    public var remaining: Int
    public init(entries: [HistoryEntry], remaining: Int) {
      self.entries = entries
      self.remaining = remaining
    }
  }

  public struct WebsearchLoaded: Equatable, Sendable {
    public var query: String
    public var results: [SearchResult]
    public init(query: String, results: [SearchResult]) {
      self.query = query
      self.results = results
    }
  }

  public struct LinkPreviewLoaded: Equatable, Sendable {
    public var url: String
    public var title: String?
    public var description: String?
    public var image: String?
    public init(url: String, title: String? = nil, description: String? = nil, image: String? = nil)
    {
      self.url = url
      self.title = title
      self.description = description
      self.image = image
    }
  }

  public struct ImageCached: Equatable, Sendable {
    public var url: String
    public var path: String
    public var bytes: Int
    public init(url: String, path: String, bytes: Int) {
      self.url = url
      self.path = path
      self.bytes = bytes
    }
  }

  public struct RequestFailed: Equatable, Sendable {
    /// The seq of the intent whose request failed.
    public var cause: Int
    public var error: RequestError
    public init(cause: Int, error: RequestError) {
      self.cause = cause
      self.error = error
    }
  }

  /// An intent refused: nothing changed. `kind` says what a frontend may do about it; the log
  /// holds only `reason`, whose wording the reducer keeps such that the kind reads back from it
  /// (`Kind(wording:)`).
  public struct ActionRejected: Equatable, Sendable {
    /// What kind of refusal.
    public enum Kind: Sendable, Equatable {
      /// A value fails validation, or the intent makes no sense now: a usage error.
      case invalid
      /// It needs a logged-in user: log in first (or again) and repeat it.
      case needsLogin
      /// A logout while nobody is logged in.
      case notLoggedIn

      /// The kind the reducer gives a refusal with this `reason`: how a refusal read back from
      /// the log gets its kind.
      public init(wording reason: String) {
        if reason.hasPrefix(Self.needsLoginWording)
          || (reason.hasPrefix("the session of ") && reason.hasSuffix(Self.loginAgainWording))
        {
          self = .needsLogin
        } else if reason == Self.notLoggedInWording {
          self = .notLoggedIn
        } else {
          self = .invalid
        }
      }

      static let needsLoginWording = "log in first to "
      static let loginAgainWording = "; log in again"
      static let notLoggedInWording = "nobody is logged in"
    }

    public var kind: Kind
    public var reason: String

    /// A refusal of `kind`; its `reason` must read back as the same kind.
    init(_ kind: Kind, _ reason: String) {
      self.kind = kind
      self.reason = reason
    }

    /// A refusal for `reason`, of the kind its wording says.
    public init(reason: String) {
      self.init(Kind(wording: reason), reason)
    }
  }
}
