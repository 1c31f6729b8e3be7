public import SusiJSON

/// Everything that can happen in susi. Intents (imperative) come from frontends; results (past
/// tense) come only from the effects runner. Each case's `type` (`ActionType`) has the case's name.
///
/// This file is the one place an action is defined: its case here and in `ActionType`, the
/// switches over every case (its type, how its payload is written and read, which reducer method
/// takes it), and, in its domain's section below, its row in the table of action types
/// (`ActionSpec`) beside its payload type, which writes and reads itself. A case added here and
/// nowhere else fails to compile until every switch has it; a row left out fails
/// `ActionSpecTests`.
///
/// Payload field names are an external contract: add fields, never rename.
public enum Action: Equatable, Sendable {
  // MARK: Intents
  case setServer(SetServer)
  case signup(Signup)
  case recoverPassword(RecoverPassword)
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
  case passwordRecoveryRequested(PasswordRecoveryRequested)
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

/// The `type` of an action: its name in the log and on the wire is the raw value.
///
/// Cases are in the documented order (Events/README.md): every intent, then every result.
/// Names are an external contract: add types, never rename one.
public enum ActionType: String, CaseIterable, Sendable {
  // MARK: Intents
  case setServer
  case signup
  case recoverPassword
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
  case passwordRecoveryRequested
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
}

// MARK: - The switches over every case

extension Action {
  /// The type of this action; its raw value is the `type` name in the log and on the wire.
  public var type: ActionType {
    switch self {
    case .setServer: .setServer
    case .signup: .signup
    case .recoverPassword: .recoverPassword
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
    case .passwordRecoveryRequested: .passwordRecoveryRequested
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

  /// Writes the payload's fields (its own `write(to:)`) into the payload object.
  func writeFields(to o: inout JSONWriter.ObjectFields) {
    switch self {
    case .setServer(let p): p.write(to: &o)
    case .signup(let p): p.write(to: &o)
    case .recoverPassword(let p): p.write(to: &o)
    case .login(let p): p.write(to: &o)
    case .logout, .syncSettings: break
    case .loadGroups(let p): p.write(to: &o)
    case .loadSkills(let p): p.write(to: &o)
    case .loadSkill(let p): p.write(to: &o)
    case .submitRating(let p): p.write(to: &o)
    case .loadUserRating(let p): p.write(to: &o)
    case .changeSettings(let p): p.write(to: &o)
    case .sendMessage(let p): p.write(to: &o)
    case .loadHistory: break
    case .search(let p): p.write(to: &o)
    case .loadLinkPreview(let p): p.write(to: &o)
    case .cacheImage(let p): p.write(to: &o)
    case .cancelRequest(let p): p.write(to: &o)
    case .createAccessGroup(let p): p.write(to: &o)
    case .grantPrivilege(let p): p.write(to: &o)
    case .revokePrivilege(let p): p.write(to: &o)
    case .issueKey(let p): p.write(to: &o)
    case .revokeKey(let p): p.write(to: &o)
    case .serverChanged(let p): p.write(to: &o)
    case .signedUp(let p): p.write(to: &o)
    case .passwordRecoveryRequested(let p): p.write(to: &o)
    case .loggedIn(let p): p.write(to: &o)
    case .loginFailed(let p): p.write(to: &o)
    case .loggedOut(let p): p.write(to: &o)
    case .groupsLoaded(let p): p.write(to: &o)
    case .skillsLoaded(let p): p.write(to: &o)
    case .skillLoaded(let p): p.write(to: &o)
    case .ratingSubmitted(let p): p.write(to: &o)
    case .userRatingLoaded(let p): p.write(to: &o)
    case .settingsChanged(let p): p.write(to: &o)
    case .settingsSynced(let p): p.write(to: &o)
    case .messageReceived(let p): p.write(to: &o)
    case .historyLoaded(let p): p.write(to: &o)
    case .websearchLoaded(let p): p.write(to: &o)
    case .linkPreviewLoaded(let p): p.write(to: &o)
    case .imageCached(let p): p.write(to: &o)
    case .requestFailed(let p): p.write(to: &o)
    case .actionRejected(let p): p.write(to: &o)
    }
  }

  /// Reads the payload of an action of `type` from its fields (each payload type's
  /// `init(reading:)`); `writePayload` is the way out.
  public static func decodeFields(type: ActionType, _ r: some FieldReading) throws(JSONShapeError)
    -> Action
  {
    switch type {
    case .setServer: .setServer(try SetServer(reading: r))
    case .signup: .signup(try Signup(reading: r))
    case .recoverPassword: .recoverPassword(try RecoverPassword(reading: r))
    case .login: .login(try Login(reading: r))
    case .logout: .logout
    case .loadGroups: .loadGroups(try LoadGroups(reading: r))
    case .loadSkills: .loadSkills(try LoadSkills(reading: r))
    case .loadSkill: .loadSkill(try LoadSkill(reading: r))
    case .submitRating: .submitRating(try SubmitRating(reading: r))
    case .loadUserRating: .loadUserRating(try LoadUserRating(reading: r))
    case .changeSettings: .changeSettings(try ChangeSettings(reading: r))
    case .syncSettings: .syncSettings
    case .sendMessage: .sendMessage(try SendMessage(reading: r))
    case .loadHistory: .loadHistory(LoadHistory())
    case .search: .search(try Search(reading: r))
    case .loadLinkPreview: .loadLinkPreview(try LoadLinkPreview(reading: r))
    case .cacheImage: .cacheImage(try CacheImage(reading: r))
    case .cancelRequest: .cancelRequest(try CancelRequest(reading: r))
    case .createAccessGroup: .createAccessGroup(try CreateAccessGroup(reading: r))
    case .grantPrivilege: .grantPrivilege(try GrantPrivilege(reading: r))
    case .revokePrivilege: .revokePrivilege(try RevokePrivilege(reading: r))
    case .issueKey: .issueKey(try IssueKey(reading: r))
    case .revokeKey: .revokeKey(try RevokeKey(reading: r))
    case .serverChanged: .serverChanged(try ServerChanged(reading: r))
    case .signedUp: .signedUp(try SignedUp(reading: r))
    case .passwordRecoveryRequested:
      .passwordRecoveryRequested(try PasswordRecoveryRequested(reading: r))
    case .loggedIn: .loggedIn(try LoggedIn(reading: r))
    case .loginFailed: .loginFailed(try LoginFailed(reading: r))
    case .loggedOut: .loggedOut(try LoggedOut(reading: r))
    case .groupsLoaded: .groupsLoaded(try GroupsLoaded(reading: r))
    case .skillsLoaded: .skillsLoaded(try SkillsLoaded(reading: r))
    case .skillLoaded: .skillLoaded(try SkillLoaded(reading: r))
    case .ratingSubmitted: .ratingSubmitted(try RatingSubmitted(reading: r))
    case .userRatingLoaded: .userRatingLoaded(try UserRatingLoaded(reading: r))
    case .settingsChanged: .settingsChanged(try SettingsChanged(reading: r))
    case .settingsSynced: .settingsSynced(try SettingsSynced(reading: r))
    case .messageReceived: .messageReceived(try MessageReceived(reading: r))
    case .historyLoaded: .historyLoaded(try HistoryLoaded(reading: r))
    case .websearchLoaded: .websearchLoaded(try WebsearchLoaded(reading: r))
    case .linkPreviewLoaded: .linkPreviewLoaded(try LinkPreviewLoaded(reading: r))
    case .imageCached: .imageCached(try ImageCached(reading: r))
    case .requestFailed: .requestFailed(try RequestFailed(reading: r))
    case .actionRejected: .actionRejected(try ActionRejected(reading: r))
    }
  }

  /// Hands the action to the reducer method that takes it: one flat switch, each domain's
  /// logic in its `Reducer+Domain.swift`.
  func reduce(into state: inout State, _ event: Event) -> Reaction {
    switch self {
    case .setServer(let p): state.setServer(p, event)
    case .signup(let p): state.signup(p, event)
    case .recoverPassword(let p): state.recoverPassword(p, event)
    case .login(let p): state.login(p, event)
    case .logout: state.logout(event)
    case .loadGroups(let p): state.loadGroups(p, event)
    case .loadSkills(let p): state.loadSkills(p, event)
    case .loadSkill(let p): state.loadSkill(p, event)
    case .submitRating(let p): state.submitRating(p, event)
    case .loadUserRating(let p): state.loadUserRating(p, event)
    case .changeSettings(let p): state.changeSettings(p, event)
    case .syncSettings: state.syncSettings(event)
    case .sendMessage(let p): state.sendMessage(p, event)
    case .loadHistory: state.loadHistory(event)
    case .search(let p): state.search(p, event)
    case .loadLinkPreview(let p): state.loadLinkPreview(p, event)
    case .cacheImage(let p): state.cacheImage(p, event)
    case .cancelRequest(let p): state.cancelRequest(p, event)
    case .createAccessGroup(let p): state.createAccessGroup(p, event)
    case .grantPrivilege(let p): state.grantPrivilege(p, event)
    case .revokePrivilege(let p): state.revokePrivilege(p, event)
    case .issueKey(let p): state.issueKey(p, event)
    case .revokeKey(let p): state.revokeKey(p, event)
    case .serverChanged(let p): state.serverChanged(p, event)
    case .signedUp: state.finished(event, completing: .signup)
    case .passwordRecoveryRequested: state.finished(event, completing: .recoverPassword)
    case .loggedIn(let p): state.loggedIn(p, event)
    case .loginFailed(let p): state.loginFailed(p, event)
    case .loggedOut: state.loggedOut(event)
    case .groupsLoaded(let p): state.groupsLoaded(p, event)
    case .skillsLoaded(let p): state.skillsLoaded(p, event)
    case .skillLoaded(let p): state.skillLoaded(p, event)
    case .ratingSubmitted(let p): state.ratingSubmitted(p, event)
    case .userRatingLoaded(let p): state.userRatingLoaded(p, event)
    case .settingsChanged(let p): state.settingsChanged(p, event)
    case .settingsSynced(let p): state.settingsSynced(p, event)
    case .messageReceived(let p): state.messageReceived(p, event)
    case .historyLoaded(let p): state.historyLoaded(p, event)
    case .websearchLoaded(let p): state.websearchLoaded(p, event)
    case .linkPreviewLoaded(let p): state.linkPreviewLoaded(p, event)
    case .imageCached(let p): state.imageCached(p, event)
    case .requestFailed(let p): state.requestFailed(p, event)
    case .actionRejected: []
    }
  }
}

// MARK: - The server in use, signup, login and logout

extension ActionSpec {
  static let session: [ActionSpec] = [
    .intent(.setServer, ["url"], "use another SUSI server (a URL, or embedded)"),
    .intent(.signup, ["email", "password"], "create an account on the server"),
    .intent(
      .recoverPassword, ["email"], "ask the server to mail a link for setting a new password"),
    .intent(
      .login, ["email", "password", "validSeconds"], supersedes: .sameType,
      "log in; the password never reaches the log"),
    .intent(.logout, [], "log out"),
    .result(.serverChanged, "the server in use changed"),
    .result(.signedUp, "the account was created"),
    .result(.passwordRecoveryRequested, "the server's answer to a password recovery"),
    .result(.loggedIn, "logged in"),
    .result(.loginFailed, "the login was refused"),
    .result(.loggedOut, "logged out"),
  ]
}

extension Action {
  /// Use another SUSI server: an absolute `http(s)` URL, or `embedded` for the built-in one.
  public struct SetServer: Equatable, Sendable {
    public var url: String
    public init(url: String) { self.url = url }

    init(reading r: some FieldReading) throws(JSONShapeError) {
      self.init(url: try r.string("url"))
    }
    func write(to o: inout JSONWriter.ObjectFields) { o.field("url", url) }
  }

  /// Create an account on the server.
  public struct Signup: Equatable, Sendable {
    public var email: String
    public var password: Secret
    public init(email: String, password: Secret) {
      self.email = email
      self.password = password
    }

    init(reading r: some FieldReading) throws(JSONShapeError) {
      self.init(email: try r.string("email"), password: Secret(try r.string("password")))
    }
    func write(to o: inout JSONWriter.ObjectFields) {
      o.field("email", email)
      o.field("password", Secret.redactedText)
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

    init(reading r: some FieldReading) throws(JSONShapeError) {
      self.init(
        email: try r.string("email"), password: Secret(try r.string("password")),
        validSeconds: try r.optionalInt("validSeconds"))
    }
    func write(to o: inout JSONWriter.ObjectFields) {
      o.field("email", email)
      o.field("password", Secret.redactedText)
      o.field("validSeconds", validSeconds)
    }
  }

  /// Ask the server to mail a link for setting a new password to an account's address.
  public struct RecoverPassword: Equatable, Sendable {
    public var email: String
    public init(email: String) { self.email = email }

    init(reading r: some FieldReading) throws(JSONShapeError) {
      self.init(email: try r.string("email"))
    }
    func write(to o: inout JSONWriter.ObjectFields) { o.field("email", email) }
  }

  public struct ServerChanged: Equatable, Sendable {
    public var url: String
    public init(url: String) { self.url = url }

    init(reading r: some FieldReading) throws(JSONShapeError) {
      self.init(url: try r.string("url"))
    }
    func write(to o: inout JSONWriter.ObjectFields) { o.field("url", url) }
  }

  public struct SignedUp: Equatable, Sendable {
    public var email: String
    /// The server's message (it says whether a verification mail was sent).
    public var message: String
    public init(email: String, message: String) {
      self.email = email
      self.message = message
    }

    init(reading r: some FieldReading) throws(JSONShapeError) {
      self.init(email: try r.string("email"), message: try r.string("message"))
    }
    func write(to o: inout JSONWriter.ObjectFields) {
      o.field("email", email)
      o.field("message", message)
    }
  }

  /// The server knows the address. `mailed` says whether it sent the recovery mail; `message`
  /// is the server's word on it (why not, when it did not: a server may have mail turned off).
  public struct PasswordRecoveryRequested: Equatable, Sendable {
    public var email: String
    public var mailed: Bool
    public var message: String
    public init(email: String, mailed: Bool, message: String) {
      self.email = email
      self.mailed = mailed
      self.message = message
    }

    init(reading r: some FieldReading) throws(JSONShapeError) {
      self.init(
        email: try r.string("email"), mailed: try r.bool("mailed"), message: try r.string("message")
      )
    }
    func write(to o: inout JSONWriter.ObjectFields) {
      o.field("email", email)
      o.field("mailed", mailed)
      o.field("message", message)
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

    init(reading r: some FieldReading) throws(JSONShapeError) {
      self.init(email: try r.string("email"), expiresAt: try readTimestamp(r, "expiresAt"))
    }
    func write(to o: inout JSONWriter.ObjectFields) {
      o.field("email", email)
      o.field("expiresAt", expiresAt?.rfc3339)
    }
  }

  public struct LoginFailed: Equatable, Sendable {
    public var email: String
    public var error: RequestError
    public init(email: String, error: RequestError) {
      self.email = email
      self.error = error
    }

    init(reading r: some FieldReading) throws(JSONShapeError) {
      self.init(
        email: try r.string("email"), error: try RequestError(reading: try r.object("error")))
    }
    func write(to o: inout JSONWriter.ObjectFields) {
      o.field("email", email)
      o.field("error") { error.write(to: &$0) }
    }
  }

  public struct LoggedOut: Equatable, Sendable {
    /// Why, when it was not the user's choice (e.g. the session expired).
    public var reason: String?
    public init(reason: String? = nil) { self.reason = reason }

    init(reading r: some FieldReading) throws(JSONShapeError) {
      self.init(reason: try r.optionalString("reason"))
    }
    func write(to o: inout JSONWriter.ObjectFields) {
      o.field("reason", reason.map(Redaction.scrub))
    }
  }
}

// MARK: - Skill groups, skills, skill details and ratings

extension ActionSpec {
  static let skills: [ActionSpec] = [
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
    .result(.groupsLoaded, "the skill groups"),
    .result(.skillsLoaded, "a list of skills"),
    .result(.skillLoaded, "one skill's details"),
    .result(.ratingSubmitted, "the rating was taken; the skill's new ratings"),
    .result(.userRatingLoaded, "your own rating of a skill"),
  ]
}

extension Action {
  public struct LoadGroups: Equatable, Sendable {
    public var language: String?
    public init(language: String? = nil) { self.language = language }

    init(reading r: some FieldReading) throws(JSONShapeError) {
      self.init(language: try r.optionalString("language"))
    }
    func write(to o: inout JSONWriter.ObjectFields) { o.field("language", language) }
  }

  /// Load one group's skills, or every skill (in one request) when `group` is nil.
  public struct LoadSkills: Equatable, Sendable {
    public var group: String?
    public var language: String?
    public init(group: String? = nil, language: String? = nil) {
      self.group = group
      self.language = language
    }

    init(reading r: some FieldReading) throws(JSONShapeError) {
      self.init(group: try r.optionalString("group"), language: try r.optionalString("language"))
    }
    func write(to o: inout JSONWriter.ObjectFields) {
      o.field("group", group)
      o.field("language", language)
    }
  }

  /// One skill to read: its details (`loadSkill`) or the user's own rating of it
  /// (`loadUserRating`).
  public struct SkillLookup: Equatable, Sendable {
    public var group: String
    public var skill: String
    // Optional members are spelled `Optional<…>` to spare a copy of the whole value per one made
    // (see `Event`).
    public var language: Optional<String>
    public init(group: String, skill: String, language: String? = nil) {
      self.group = group
      self.skill = skill
      self.language = language
    }

    init(reading r: some FieldReading) throws(JSONShapeError) {
      self.init(
        group: try r.string("group"), skill: try r.string("skill"),
        language: try r.optionalString("language"))
    }
    func write(to o: inout JSONWriter.ObjectFields) {
      o.field("group", group)
      o.field("skill", skill)
      o.field("language", language)
    }
  }

  public typealias LoadSkill = SkillLookup

  public struct SubmitRating: Equatable, Sendable {
    public var group: String
    public var skill: String
    public var stars: Int
    // Optional members are spelled `Optional<…>` to spare a copy of the whole value per one made
    // (see `Event`).
    public var language: Optional<String>
    public init(group: String, skill: String, stars: Int, language: String? = nil) {
      self.group = group
      self.skill = skill
      self.stars = stars
      self.language = language
    }

    init(reading r: some FieldReading) throws(JSONShapeError) {
      self.init(
        group: try r.string("group"), skill: try r.string("skill"), stars: try r.int("stars"),
        language: try r.optionalString("language"))
    }
    func write(to o: inout JSONWriter.ObjectFields) {
      o.field("group", group)
      o.field("skill", skill)
      o.field("stars", stars)
      o.field("language", language)
    }
  }

  public typealias LoadUserRating = SkillLookup

  public struct GroupsLoaded: Equatable, Sendable {
    public var groups: [String]
    public init(groups: [String]) { self.groups = groups }

    init(reading r: some FieldReading) throws(JSONShapeError) {
      self.init(groups: try r.strings("groups"))
    }
    func write(to o: inout JSONWriter.ObjectFields) { o.field("groups", groups) }
  }

  /// Skills of one group, or of every group (`group == nil`, each skill carrying its group).
  public struct SkillsLoaded: Equatable, Sendable {
    public var group: String?
    public var skills: [Skill]
    public init(group: String?, skills: [Skill]) {
      self.group = group
      self.skills = skills
    }

    init(reading r: some FieldReading) throws(JSONShapeError) {
      let skills = try r.objects("skills") { (s) throws(JSONShapeError) in try Skill(reading: s) }
      self.init(group: try r.optionalString("group"), skills: skills)
    }
    func write(to o: inout JSONWriter.ObjectFields) {
      o.field("group", group)
      o.field("skills") { $0.array(skills) { w, s in s.write(to: &w) } }
    }
  }

  public struct SkillLoaded: Equatable, Sendable {
    public var skill: Skill
    public init(skill: Skill) { self.skill = skill }

    init(reading r: some FieldReading) throws(JSONShapeError) {
      self.init(skill: try Skill(reading: try r.object("skill")))
    }
    func write(to o: inout JSONWriter.ObjectFields) { o.field("skill") { skill.write(to: &$0) } }
  }

  public struct RatingSubmitted: Equatable, Sendable {
    public var group: String
    public var skill: String
    public var stars: Int
    /// The skill's aggregate after the rating (what the server replies).
    public var ratings: RatingAggregate
    // Optional members are spelled `Optional<…>` to spare a copy of the whole value per one made
    // (see `Event`).
    /// The skill as the runner looked it up, when it was not loaded before.
    public var resolved: Optional<Skill>
    public init(
      group: String, skill: String, stars: Int, ratings: RatingAggregate, resolved: Skill? = nil
    ) {
      self.group = group
      self.skill = skill
      self.stars = stars
      self.ratings = ratings
      self.resolved = resolved
    }

    init(reading r: some FieldReading) throws(JSONShapeError) {
      self.init(
        group: try r.string("group"), skill: try r.string("skill"), stars: try r.int("stars"),
        ratings: try RatingAggregate(reading: try r.object("ratings")),
        resolved: try readResolved(r))
    }
    func write(to o: inout JSONWriter.ObjectFields) {
      o.field("group", group)
      o.field("skill", skill)
      o.field("stars", stars)
      o.field("ratings") { ratings.write(to: &$0) }
      if let resolved { o.field("resolved") { resolved.write(to: &$0) } }
    }
  }

  public struct UserRatingLoaded: Equatable, Sendable {
    public var group: String
    public var skill: String
    /// The user's own stars; nil when the user has not rated the skill.
    // Optional members are spelled `Optional<…>` to spare a copy of the whole value per one made
    // (see `Event`).
    public var stars: Optional<Int>
    /// The skill as the runner looked it up, when it was not loaded before.
    public var resolved: Optional<Skill>
    public init(group: String, skill: String, stars: Int?, resolved: Skill? = nil) {
      self.group = group
      self.skill = skill
      self.stars = stars
      self.resolved = resolved
    }

    init(reading r: some FieldReading) throws(JSONShapeError) {
      self.init(
        group: try r.string("group"), skill: try r.string("skill"),
        stars: try r.optionalInt("stars"), resolved: try readResolved(r))
    }
    func write(to o: inout JSONWriter.ObjectFields) {
      o.field("group", group)
      o.field("skill", skill)
      o.fieldOrNull("stars", stars)
      if let resolved { o.field("resolved") { resolved.write(to: &$0) } }
    }
  }
}

// MARK: - Settings

extension ActionSpec {
  static let settings: [ActionSpec] = [
    .intent(
      .changeSettings, ["settings"], needsLoginTo: "change settings",
      "change settings on the server"),
    .intent(
      .syncSettings, [], needsLoginTo: "sync settings", supersedes: .sameType,
      "load the settings from the server"),
    .result(.settingsChanged, "the settings were changed"),
    .result(.settingsSynced, "the settings on the server"),
  ]
}

extension Action {
  /// Settings by key: what `changeSettings` asks to change, what `settingsChanged` says was
  /// changed and what `settingsSynced` says the server holds.
  public struct SettingsPayload: Equatable, Sendable {
    public var settings: [String: SettingValue]
    public init(settings: [String: SettingValue]) { self.settings = settings }

    init(reading r: some FieldReading) throws(JSONShapeError) {
      self.init(settings: try readSettings(r, "settings"))
    }
    func write(to o: inout JSONWriter.ObjectFields) {
      o.field("settings") { writeSettings(settings, to: &$0) }
    }
  }

  /// Change settings on the server; several keys go in one call.
  public typealias ChangeSettings = SettingsPayload

  public typealias SettingsChanged = SettingsPayload

  public typealias SettingsSynced = SettingsPayload
}

// MARK: - Chat and the server's memory of it

extension ActionSpec {
  static let chat: [ActionSpec] = [
    .intent(.sendMessage, ["query", "language"], "ask SUSI something"),
    .intent(
      .loadHistory, [], supersedes: .sameType,
      "load the next page of the server's memory of your chats"),
    .result(.messageReceived, "SUSI's answer"),
    .result(.historyLoaded, "a page of the server's memory of your chats"),
  ]
}

extension Action {
  public struct SendMessage: Equatable, Sendable {
    public var query: String
    // Optional members are spelled `Optional<…>` to spare a copy of the whole value per one made
    // (see `Event`).
    /// The query's language; nil = the user's preferred language, else the machine's.
    public var language: Optional<String>
    public init(query: String, language: String? = nil) {
      self.query = query
      self.language = language
    }

    init(reading r: some FieldReading) throws(JSONShapeError) {
      self.init(query: try r.string("query"), language: try r.optionalString("language"))
    }
    func write(to o: inout JSONWriter.ObjectFields) {
      o.field("query", query)
      o.field("language", language)
    }
  }

  /// Load the next page of the server's memory of this user's chats.
  public struct LoadHistory: Equatable, Sendable {
    public init() {}
  }

  /// SUSI's answer to a query: every action of the answer, in order.
  public struct MessageReceived: Equatable, Sendable {
    public var query: String
    public var answers: [AnswerAction]
    // Optional members are spelled `Optional<…>` to spare a copy of the whole value per one made
    // (see `Event`).
    /// The answering skill's server path, when the server names it.
    public var skill: Optional<String>
    /// Answers planned for later, soonest first; the runner delivers each after its delay.
    public var planned: [PlannedAnswer]
    /// The server replied as if nobody were logged in (`session.identity.anonymous`).
    public var anonymous: Optional<Bool>
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

    init(reading r: some FieldReading) throws(JSONShapeError) {
      let planned = try readPlanned(r, "planned")
      self.init(
        query: try r.string("query"), answers: try readAnswers(r, "answers"),
        skill: try r.optionalString("skill"), planned: planned,
        anonymous: try r.optionalBool("anonymous"))
    }
    func write(to o: inout JSONWriter.ObjectFields) {
      o.field("query", query)
      o.field("answers") { writeAnswers(answers, to: &$0) }
      o.field("skill", skill)
      if !planned.isEmpty {
        o.field("planned") { $0.array(planned) { w, x in x.write(to: &w) } }
      }
      o.field("anonymous", anonymous)
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

    init(reading r: some FieldReading) throws(JSONShapeError) {
      let entries = try r.objects("entries") { (e) throws(JSONShapeError) in
        try HistoryEntry(reading: e)
      }
      self.init(entries: entries, remaining: try r.optionalInt("remaining") ?? 0)
    }
    func write(to o: inout JSONWriter.ObjectFields) {
      o.field("entries") { $0.array(entries) { w, e in e.write(to: &w) } }
      o.field("remaining", remaining)
    }
  }
}

// MARK: - Web search, link previews and images

extension ActionSpec {
  static let web: [ActionSpec] = [
    .intent(.search, ["query"], supersedes: .sameSubject, "search the web"),
    .intent(
      .loadLinkPreview, ["url"], supersedes: .sameSubject, "load the title and image of a page"),
    .intent(.cacheImage, ["url"], "keep an image in the local cache"),
    .result(.websearchLoaded, "web-search results"),
    .result(.linkPreviewLoaded, "a page's title and image"),
    .result(.imageCached, "an image is in the local cache"),
  ]
}

extension Action {
  public struct Search: Equatable, Sendable {
    public var query: String
    public init(query: String) { self.query = query }

    init(reading r: some FieldReading) throws(JSONShapeError) {
      self.init(query: try r.string("query"))
    }
    func write(to o: inout JSONWriter.ObjectFields) { o.field("query", query) }
  }

  /// A page or image address: what `loadLinkPreview` and `cacheImage` take.
  public struct PageAddress: Equatable, Sendable {
    public var url: String
    public init(url: String) { self.url = url }

    init(reading r: some FieldReading) throws(JSONShapeError) {
      self.init(url: try r.string("url"))
    }
    func write(to o: inout JSONWriter.ObjectFields) { o.field("url", url) }
  }

  public typealias LoadLinkPreview = PageAddress

  public typealias CacheImage = PageAddress

  public struct WebsearchLoaded: Equatable, Sendable {
    public var query: String
    public var results: [SearchResult]
    public init(query: String, results: [SearchResult]) {
      self.query = query
      self.results = results
    }

    init(reading r: some FieldReading) throws(JSONShapeError) {
      let results = try r.objects("results") { (x) throws(JSONShapeError) in
        try SearchResult(reading: x)
      }
      self.init(query: try r.string("query"), results: results)
    }
    func write(to o: inout JSONWriter.ObjectFields) {
      o.field("query", query)
      o.field("results") { $0.array(results) { w, r in r.write(to: &w) } }
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

    init(reading r: some FieldReading) throws(JSONShapeError) {
      self.init(
        url: try r.string("url"), title: try r.optionalString("title"),
        description: try r.optionalString("description"), image: try r.optionalString("image"))
    }
    func write(to o: inout JSONWriter.ObjectFields) {
      o.field("url", url)
      o.field("title", title)
      o.field("description", description)
      o.field("image", image)
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

    init(reading r: some FieldReading) throws(JSONShapeError) {
      self.init(url: try r.string("url"), path: try r.string("path"), bytes: try r.int("bytes"))
    }
    func write(to o: inout JSONWriter.ObjectFields) {
      o.field("url", url)
      o.field("path", path)
      o.field("bytes", bytes)
    }
  }
}

// MARK: - Requests: cancelling, failures and refusals

extension ActionSpec {
  static let requests: [ActionSpec] = [
    .intent(.cancelRequest, ["seq"], "cancel the request of an earlier intent"),
    .result(.requestFailed, "a request failed"),
    .result(.actionRejected, "an intent was refused; nothing changed"),
  ]
}

extension Action {
  /// Cancel the request started by the intent with this seq.
  public struct CancelRequest: Equatable, Sendable {
    public var seq: Int
    public init(seq: Int) { self.seq = seq }

    init(reading r: some FieldReading) throws(JSONShapeError) { self.init(seq: try r.int("seq")) }
    func write(to o: inout JSONWriter.ObjectFields) { o.field("seq", seq) }
  }

  public struct RequestFailed: Equatable, Sendable {
    /// The seq of the intent whose request failed.
    public var cause: Int
    public var error: RequestError
    public init(cause: Int, error: RequestError) {
      self.cause = cause
      self.error = error
    }

    init(reading r: some FieldReading) throws(JSONShapeError) {
      self.init(
        cause: try r.int("cause"), error: try RequestError(reading: try r.object("error")))
    }
    func write(to o: inout JSONWriter.ObjectFields) {
      o.field("cause", cause)
      o.field("error") { error.write(to: &$0) }
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

    init(reading r: some FieldReading) throws(JSONShapeError) {
      self.init(reason: try r.string("reason"))
    }
    func write(to o: inout JSONWriter.ObjectFields) { o.field("reason", Redaction.scrub(reason)) }
  }
}

// MARK: - Access: groups, privileges and keys (see `AccessControl`)

// Each access intent carries `by`, the id of the acting key (or `local` for the person at the
// machine), which the frontend takes from the authenticated request, never from the caller's
// body.

extension ActionSpec {
  static let access: [ActionSpec] = [
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
  ]
}

extension Action {
  /// Create a group; it starts with the privileges of the `default` group.
  public struct CreateAccessGroup: Equatable, Sendable {
    public var by: String
    public var group: String
    public init(by: String, group: String) {
      self.by = by
      self.group = group
    }

    init(reading r: some FieldReading) throws(JSONShapeError) {
      self.init(by: try r.string("by"), group: try r.string("group"))
    }
    func write(to o: inout JSONWriter.ObjectFields) {
      o.field("by", by)
      o.field("group", group)
    }
  }

  /// One privilege of one group: what `grantPrivilege` adds and `revokePrivilege` takes away.
  public struct PrivilegeChange: Equatable, Sendable {
    public var by: String
    public var group: String
    public var privilege: Privilege
    public init(by: String, group: String, privilege: Privilege) {
      self.by = by
      self.group = group
      self.privilege = privilege
    }

    init(reading r: some FieldReading) throws(JSONShapeError) {
      self.init(
        by: try r.string("by"), group: try r.string("group"),
        privilege: Privilege(rawValue: try r.string("privilege")))
    }
    func write(to o: inout JSONWriter.ObjectFields) {
      o.field("by", by)
      o.field("group", group)
      o.field("privilege", privilege.rawValue)
    }
  }

  /// Add a privilege to a group.
  public typealias GrantPrivilege = PrivilegeChange

  /// Take a privilege away from a group.
  public typealias RevokePrivilege = PrivilegeChange

  /// Record a new key. Only its id goes into the log; the hash of its secret is kept in the
  /// keys file beside the log.
  public struct IssueKey: Equatable, Sendable {
    public var by: String
    /// `key_` and 16 hex digits.
    public var key: String
    public var groups: [String]
    public var label: String?
    public init(by: String, key: String, groups: [String], label: String? = nil) {
      self.by = by
      self.key = key
      self.groups = groups
      self.label = label
    }

    init(reading r: some FieldReading) throws(JSONShapeError) {
      self.init(
        by: try r.string("by"), key: try r.string("key"), groups: try r.strings("groups"),
        label: try r.optionalString("label"))
    }
    func write(to o: inout JSONWriter.ObjectFields) {
      o.field("by", by)
      o.field("key", key)
      o.field("groups", groups)
      o.field("label", label)
    }
  }

  /// Stop a key from working.
  public struct RevokeKey: Equatable, Sendable {
    public var by: String
    public var key: String
    public init(by: String, key: String) {
      self.by = by
      self.key = key
    }

    init(reading r: some FieldReading) throws(JSONShapeError) {
      self.init(by: try r.string("by"), key: try r.string("key"))
    }
    func write(to o: inout JSONWriter.ObjectFields) {
      o.field("by", by)
      o.field("key", key)
    }
  }
}
