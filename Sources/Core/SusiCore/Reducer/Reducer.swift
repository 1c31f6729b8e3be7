/// Applies one event to the state and returns what it decided: the work it asks for, and the
/// results it gives at once.
///
/// Pure: no I/O, no clock (time is `event.at`), no randomness. Replaying a log through this
/// function rebuilds exactly the state the live run had. Invalid intents change nothing and are
/// answered at once with `actionRejected`; a server switch with `serverChanged`.
public func reduce(_ state: inout State, _ event: Event) -> Reaction {
  switch event.action {
  case .setServer(let p): return state.setServer(p, event)
  case .signup(let p): return state.signup(p, event)
  case .login(let p): return state.login(p, event)
  case .logout: return state.logout(event)
  case .loadGroups(let p): return state.loadGroups(p, event)
  case .loadSkills(let p): return state.loadSkills(p, event)
  case .loadSkill(let p): return state.loadSkill(p, event)
  case .submitRating(let p): return state.submitRating(p, event)
  case .loadUserRating(let p): return state.loadUserRating(p, event)
  case .changeSettings(let p): return state.changeSettings(p, event)
  case .syncSettings: return state.syncSettings(event)
  case .sendMessage(let p): return state.sendMessage(p, event)
  case .loadHistory: return state.loadHistory(event)
  case .search(let p): return state.search(p, event)
  case .loadLinkPreview(let p): return state.loadLinkPreview(p, event)
  case .cacheImage(let p): return state.cacheImage(p, event)
  case .cancelRequest(let p): return state.cancelRequest(p, event)
  case .createAccessGroup(let p): return state.createAccessGroup(p, event)
  case .grantPrivilege(let p): return state.grantPrivilege(p, event)
  case .revokePrivilege(let p): return state.revokePrivilege(p, event)
  case .issueKey(let p): return state.issueKey(p, event)
  case .revokeKey(let p): return state.revokeKey(p, event)

  case .serverChanged(let p): return state.serverChanged(p, event)
  case .signedUp: return state.finished(event, completing: .signup)
  case .loggedIn(let p): return state.loggedIn(p, event)
  case .loginFailed(let p): return state.loginFailed(p, event)
  case .loggedOut: return state.loggedOut(event)
  case .groupsLoaded(let p): return state.groupsLoaded(p, event)
  case .skillsLoaded(let p): return state.skillsLoaded(p, event)
  case .skillLoaded(let p): return state.skillLoaded(p, event)
  case .ratingSubmitted(let p): return state.ratingSubmitted(p, event)
  case .userRatingLoaded(let p): return state.userRatingLoaded(p, event)
  case .settingsChanged(let p): return state.settingsChanged(p, event)
  case .settingsSynced(let p): return state.settingsSynced(p, event)
  case .messageReceived(let p): return state.messageReceived(p, event)
  case .historyLoaded(let p): return state.historyLoaded(p, event)
  case .websearchLoaded(let p): return state.websearchLoaded(p, event)
  case .linkPreviewLoaded(let p): return state.linkPreviewLoaded(p, event)
  case .imageCached(let p): return state.imageCached(p, event)
  case .requestFailed(let p): return state.requestFailed(p, event)
  case .actionRejected: return []
  }
}
