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
