// The server in use, signup, password recovery, login and logout.

extension State {
  /// The longest token lifetime a login may ask for, in seconds (ten years).
  static let longestTokenLifetime = 315_360_000

  mutating func setServer(_ p: Action.SetServer, _ event: Event) -> Reaction {
    guard let url = Validation.serverURL(p.url) else {
      return .rejected(
        "'\(p.url)' is not a server URL: use http(s)://host[:port][/path] or 'embedded'")
    }
    return Reaction(results: [.serverChanged(Action.ServerChanged(url: url))])
  }

  mutating func serverChanged(_ p: Action.ServerChanged, _ event: Event) -> Reaction {
    guard p.url != server else { return [] }
    // What we knew came from the other server: skills, ratings, the session and its memory.
    // Requests still on their way to it are cancelled, so no late answer lands in the new
    // server's state.
    var effects = inFlight.keys.sorted().map { Effect.cancel(seq: $0) }
    // The old server's token must not travel on to the new one, nor stay on disk.
    if let session {
      effects.append(
        .logout(
          server: server, reason: "switched to another server; \(session.email) was logged out"))
    }
    server = p.url
    session = nil
    groups = []
    skills = [:]
    userRatings = [:]
    history = []
    historyRemaining = nil
    lastErrors = [:]
    return Reaction(effects: effects)
  }

  mutating func signup(_ p: Action.Signup, _ event: Event) -> Reaction {
    if let problem = Validation.emailProblem(p.email) { return .rejected(problem) }
    if p.password.isEmpty { return .rejected("the password is empty") }
    return start(.signup, event, .signup(server: server, email: p.email, password: p.password))
  }

  mutating func recoverPassword(_ p: Action.RecoverPassword, _ event: Event) -> Reaction {
    if let problem = Validation.emailProblem(p.email) { return .rejected(problem) }
    return start(.recoverPassword, event, .recoverPassword(server: server, email: p.email))
  }

  mutating func login(_ p: Action.Login, _ event: Event) -> Reaction {
    if let problem = Validation.emailProblem(p.email) { return .rejected(problem) }
    if p.password.isEmpty { return .rejected("the password is empty") }
    if let seconds = p.validSeconds,
      seconds == 0 || seconds < -1 || seconds > Self.longestTokenLifetime
    {
      return .rejected(
        "validSeconds must be 1 to \(Self.longestTokenLifetime) (ten years), or -1 for a token that never expires"
      )
    }
    return start(
      .login, event,
      .login(server: server, email: p.email, password: p.password, validSeconds: p.validSeconds))
  }

  mutating func logout(_ event: Event) -> Reaction {
    guard session != nil else {
      return .rejected(.notLoggedIn, Action.ActionRejected.Kind.notLoggedInWording)
    }
    return start(.logout, event, .logout(server: server, reason: nil))
  }

  mutating func loggedIn(_ p: Action.LoggedIn, _ event: Event) -> Reaction {
    finish(event, completing: .login)
    if session?.email != p.email {
      userRatings = [:]
      settings = [:]
    }
    session = Session(email: p.email, expiresAt: p.expiresAt, since: event.at)
    return []
  }

  mutating func loginFailed(_ p: Action.LoginFailed, _ event: Event) -> Reaction {
    if let cause = event.cause, inFlight[cause]?.intent == .login { inFlight[cause] = nil }
    lastErrors[ActionType.login.rawValue] = p.error.scrubbed
    return []
  }

  mutating func loggedOut(_ event: Event) -> Reaction {
    finish(event, completing: .logout)
    // Settings belong to the user: the next one must not see them.
    session = nil
    userRatings = [:]
    settings = [:]
    return []
  }
}
