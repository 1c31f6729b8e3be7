/// What susi knows about one action type, in one place: its kind, the payload fields an intent
/// takes, the privilege a caller needs to send it, whether it needs a logged-in user, which older
/// request a new one supersedes, and a line of help. The codec, the access rules, the reducer's
/// bookkeeping and the frontends' help read it from here (`ActionType.spec`).
public struct ActionSpec: Sendable {
  /// Which older request in flight a new request of this type makes pointless.
  public enum Supersedes: Sendable, Equatable {
    /// None: every request counts (a rating, a chat message).
    case nothing
    /// Any older request of this type (there is one list of groups).
    case sameType
    /// An older request of this type about the same subject (the same skill, the same URL);
    /// the reducer names the subject.
    case sameSubject
  }

  public let type: ActionType
  public let kind: Action.Kind
  /// For an intent, the payload fields it takes, in the order the log writes them (input from
  /// other programs may carry no others); nil for a result.
  public let fields: [String]?
  /// For an intent, the privilege a caller needs to send it; nil for a result.
  public let privilege: Privilege?
  /// For an intent that only works for a logged-in user, what it does, as in "log in first to
  /// rate skills"; nil otherwise.
  public let loginPurpose: String?
  public let supersedes: Supersedes
  /// What it does, in one line, for help and completion.
  public let summary: String

  /// Whether a request of this type needs a logged-in user.
  public var needsLogin: Bool { loginPurpose != nil }

  /// The superseding key of a request of this type about `subject` (`loadSkill:Knowledge/x`):
  /// a newer request with the same key cancels the older one. Nil when this type supersedes
  /// nothing.
  public func supersedingKey(about subject: String?) -> String? {
    switch supersedes {
    case .nothing: nil
    case .sameType: type.rawValue
    case .sameSubject: subject.map { "\(type.rawValue):\($0)" } ?? type.rawValue
    }
  }

  static func intent(
    _ type: ActionType, _ fields: [String], privilege: Privilege? = nil,
    needsLoginTo loginPurpose: String? = nil, supersedes: Supersedes = .nothing,
    _ summary: String
  ) -> ActionSpec {
    ActionSpec(
      type: type, kind: .intent, fields: fields,
      privilege: privilege ?? Privilege(rawValue: type.rawValue), loginPurpose: loginPurpose,
      supersedes: supersedes, summary: summary)
  }

  static func result(_ type: ActionType, _ summary: String) -> ActionSpec {
    ActionSpec(
      type: type, kind: .result, fields: nil, privilege: nil, loginPurpose: nil,
      supersedes: .nothing, summary: summary)
  }
}

/// The `type` of an action: its name in the log and on the wire is the raw value.
///
/// Cases are in the documented order (Events/README.md): every intent, then every result.
/// Names are an external contract: add types, never rename one.
public enum ActionType: String, CaseIterable, Sendable {
  // MARK: Intents
  case setServer
  case signup
  case login
  case logout
  case loadGroups
  case loadSkills
  case loadSkill
  case submitRating
  case loadUserRating
  case changeSettings
  case syncSettings
  case sendMessage
  case loadHistory
  case search
  case loadLinkPreview
  case cacheImage
  case cancelRequest
  case createAccessGroup
  case grantPrivilege
  case revokePrivilege
  case issueKey
  case revokeKey

  // MARK: Results
  case serverChanged
  case signedUp
  case loggedIn
  case loginFailed
  case loggedOut
  case groupsLoaded
  case skillsLoaded
  case skillLoaded
  case ratingSubmitted
  case userRatingLoaded
  case settingsChanged
  case settingsSynced
  case messageReceived
  case historyLoaded
  case websearchLoaded
  case linkPreviewLoaded
  case imageCached
  case requestFailed
  case actionRejected

  /// Every intent type, in the documented order.
  public static let intents: [ActionType] = allCases.filter { $0.kind == .intent }

  /// Every result type, in the documented order.
  public static let results: [ActionType] = allCases.filter { $0.kind == .result }
}

extension ActionType {
  /// Everything known about this type; see `ActionSpec`.
  public var spec: ActionSpec { ActionSpec.table[self]! }

  public var kind: Action.Kind { spec.kind }

  /// The payload fields an intent of this type accepts, as a set; nil for a result.
  var acceptedFields: Set<String>? { ActionSpec.acceptedFields[self]! }
}

extension ActionSpec {
  /// The table, by type. Every `ActionType` has exactly one entry (a test checks it).
  static let table: [ActionType: ActionSpec] = Dictionary(
    uniqueKeysWithValues: every.map { ($0.type, $0) })

  static let acceptedFields: [ActionType: Set<String>?] = table.mapValues {
    $0.fields.map(Set.init)
  }

  /// Every entry, in the documented order: the intents, then the results.
  public static let every: [ActionSpec] = [
    .intent(.setServer, ["url"], "use another SUSI server (a URL, or embedded)"),
    .intent(.signup, ["email", "password"], "create an account on the server"),
    .intent(
      .login, ["email", "password", "validSeconds"], supersedes: .sameType,
      "log in; the password never reaches the log"),
    .intent(.logout, [], "log out"),
    .intent(
      .loadGroups, ["language"], supersedes: .sameType, "load the names of the skill groups"),
    .intent(
      .loadSkills, ["group", "language"], supersedes: .sameSubject,
      "load one group's skills, or every skill"),
    .intent(
      .loadSkill, ["group", "skill", "language"], supersedes: .sameSubject,
      "load one skill's details"),
    .intent(
      .submitRating, ["group", "skill", "stars", "language"], needsLoginTo: "rate skills",
      "rate a skill from 1 to 5 stars"),
    .intent(
      .loadUserRating, ["group", "skill", "language"], needsLoginTo: "read your ratings",
      supersedes: .sameSubject, "load your own rating of a skill"),
    .intent(
      .changeSettings, ["settings"], needsLoginTo: "change settings",
      "change settings on the server"),
    .intent(
      .syncSettings, [], needsLoginTo: "sync settings", supersedes: .sameType,
      "load the settings from the server"),
    .intent(.sendMessage, ["query", "language"], "ask SUSI something"),
    .intent(
      .loadHistory, [], supersedes: .sameType,
      "load the next page of the server's memory of your chats"),
    .intent(.search, ["query"], supersedes: .sameSubject, "search the web"),
    .intent(
      .loadLinkPreview, ["url"], supersedes: .sameSubject, "load the title and image of a page"),
    .intent(.cacheImage, ["url"], "keep an image in the local cache"),
    .intent(.cancelRequest, ["seq"], "cancel the request of an earlier intent"),
    .intent(
      .createAccessGroup, ["by", "group"], privilege: .groupsManage,
      "create an access group for keys"),
    .intent(
      .grantPrivilege, ["by", "group", "privilege"], privilege: .groupsManage,
      "add a privilege to an access group"),
    .intent(
      .revokePrivilege, ["by", "group", "privilege"], privilege: .groupsManage,
      "take a privilege away from an access group"),
    .intent(
      .issueKey, ["by", "key", "groups", "label"], privilege: .keysManage,
      "record a new access key"),
    .intent(.revokeKey, ["by", "key"], privilege: .keysManage, "stop an access key from working"),

    .result(.serverChanged, "the server in use changed"),
    .result(.signedUp, "the account was created"),
    .result(.loggedIn, "logged in"),
    .result(.loginFailed, "the login was refused"),
    .result(.loggedOut, "logged out"),
    .result(.groupsLoaded, "the skill groups"),
    .result(.skillsLoaded, "a list of skills"),
    .result(.skillLoaded, "one skill's details"),
    .result(.ratingSubmitted, "the rating was taken; the skill's new ratings"),
    .result(.userRatingLoaded, "your own rating of a skill"),
    .result(.settingsChanged, "the settings were changed"),
    .result(.settingsSynced, "the settings on the server"),
    .result(.messageReceived, "SUSI's answer"),
    .result(.historyLoaded, "a page of the server's memory of your chats"),
    .result(.websearchLoaded, "web-search results"),
    .result(.linkPreviewLoaded, "a page's title and image"),
    .result(.imageCached, "an image is in the local cache"),
    .result(.requestFailed, "a request failed"),
    .result(.actionRejected, "an intent was refused; nothing changed"),
  ]
}
