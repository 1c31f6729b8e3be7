import Foundation
import SusiJSON

/// `/aaa/login.json`: password login for an access token, check login, logout and account
/// deletion, with the real server's statuses and texts.
///
/// The public-key login steps (`keyhash`, `sessionID`/`response`) are not offered; such calls
/// get `400 Bad login parameters.`
enum LoginEndpoint {
  /// `valid_seconds` when the caller does not say: seven days.
  static let defaultValidSeconds = 604_800
  /// The longest a token lives: one year. The real server lets `valid_seconds=-1` make a token
  /// that never expires; here -1, and anything longer, gets this.
  static let maxValidSeconds = 31_536_000

  static func handle(_ request: EndpointRequest) throws(APIError) -> JSONReply {
    let parameters = request.parameters
    if parameters.bool("checkLogin") { return checkLogin(request) }
    if parameters.bool("logout") {
      // As the real server, the parameter must be there; unlike it (which never revokes the
      // token), the token given, and the login cookie, stop working.
      guard let token = parameters["access_token"] else { throw APIError(401, "Unauthorized") }
      try logout(
        tokens: [token] + (IdentityResolver.loginCookie(request.http).map { [$0] } ?? []), request)
      return JSONReply(["accepted": true, "message": "Logout successful"])
    }
    if parameters.bool("delete") { return try delete(request) }
    if let login = parameters["login"], let password = parameters["password"],
      let type = parameters["type"]
    {
      return try passwordLogin(request, login: login, password: password, type: type)
    }
    throw APIError(400, "Bad login parameters.")
  }

  static func checkLogin(_ request: EndpointRequest) -> JSONReply {
    if request.identity.kind == .email {
      return JSONReply([
        "loggedIn": true, "accepted": true,
        "message": .string("You are logged in as \(request.identity.name)"),
      ])
    }
    return JSONReply(["loggedIn": false, "accepted": false, "message": "Not logged in"])
  }

  /// Revokes `tokens`, keeping the file in step.
  static func logout(tokens: [String], _ request: EndpointRequest) throws(APIError) {
    try request.context.withState { (state: inout ServerState) throws(APIError) in
      var book = state.tokens
      var changed = false
      for token in tokens where book.remove(token: token) { changed = true }
      guard changed else { return }
      if let store = request.context.store {
        do throws(FileError) { try store.saveTokens(book) } catch {
          throw ServerContext.saveFailed(error)
        }
      }
      state.tokens = book
    }
  }

  static func delete(_ request: EndpointRequest) throws(APIError) -> JSONReply {
    guard request.identity.kind == .email else { throw APIError(401, "Unauthorized") }
    let email = request.identity.name
    try request.context.withState { (state: inout ServerState) throws(APIError) in
      var accounts = state.accounts
      var tokens = state.tokens
      var ratings = state.ratings
      accounts.remove(email)
      tokens.removeAll(for: email)
      ratings.removeAll(for: email)
      if let store = request.context.store {
        do throws(FileError) {
          try store.saveAccounts(accounts)
          try store.saveTokens(tokens)
          try store.saveRatings(ratings)
        } catch {
          throw ServerContext.saveFailed(error)
        }
      }
      state.accounts = accounts
      state.tokens = tokens
      state.ratings = ratings
    }
    return JSONReply(["accepted": true, "message": "Account deletion successful"])
  }

  /// Checks the password and answers by `type`. The slow hash runs outside the state lock;
  /// the attempt counts as a failure from the start (so parallel guesses cannot slip past the
  /// lockout while it runs) and is forgiven when the password is right.
  static func passwordLogin(
    _ request: EndpointRequest, login: String, password: String, type: String
  ) throws(APIError) -> JSONReply {
    let context = request.context
    let keys = LoginFailures.keys(address: request.caller, account: login)
    let now = request.now
    let captchaGiven = request.parameters.nonEmpty("g-recaptcha-response") != nil
    let iterations = context.configuration.passwordIterations
    let found = try context.withState {
      (state: inout ServerState) throws(APIError) -> Account?? in
      if let wait = state.loginFailures.lockout(keys, now: now) { throw lockedOut(wait) }
      if context.configuration.loginCaptcha, !captchaGiven,
        state.loginFailures.hasRecentFailures(keys, now: now)
      {
        return .none
      }
      state.loginFailures.record(keys, now: now)
      return .some(state.accounts.account(login))
    }
    guard case .some(let known) = found else {
      return JSONReply(["accepted": false, "message": "Please verify recaptcha"])
    }

    // An unknown account costs the same hash as a known one and gets the same answer, so
    // neither the status (the real server: 401 unknown, 422 wrong password) nor the time
    // tells which accounts exist. Its stand-in hash has the current cost and matches nothing.
    let stored =
      known?.passwordHash ?? "pbkdf2-sha256:\(iterations):" + String(repeating: "0", count: 64)
    let verdict = PasswordHasher.verify(
      password, salt: known?.salt ?? "", stored: stored, iterations: iterations)
    guard let account = known, case .correct(let needsRehash) = verdict else {
      throw APIError(401, "Invalid credentials")
    }
    let salt = PasswordHasher.makeSalt()
    let rehashed =
      needsRehash
      ? PasswordHasher.hash(password, salt: salt, iterations: iterations) : nil

    return try context.withState { (state: inout ServerState) throws(APIError) -> JSONReply in
      state.loginFailures.forgive(keys, at: now)
      // Failures recorded by parallel attempts while the hash ran still lock the account.
      if let wait = state.loginFailures.lockout(keys, now: now) { throw lockedOut(wait) }
      if let rehashed { upgradeHash(of: account, to: rehashed, salt: salt, context, &state) }
      let message = JSON.string("You are logged in as \(account.email)")
      switch type {
      case "access-token":
        let seconds = try validSeconds(request.parameters)
        let token = try issueToken(for: account, seconds: seconds, now: now, context, &state)
        return JSONReply([
          "accepted": true, "valid_seconds": .int(seconds),
          "uuid": .string(account.uuid), "access_token": .string(token), "message": message,
        ])
      case "cookie":
        let token = try issueToken(
          for: account, seconds: defaultValidSeconds, now: now, context, &state)
        return JSONReply(
          ["accepted": true, "message": message],
          headers: [
            ("Set-Cookie", "login=\(token); Path=/; Max-Age=\(defaultValidSeconds); HttpOnly")
          ])
      case "session":
        // There are no servlet sessions here; the caller is told it is logged in, as the real
        // server does, and should use an access token for later calls.
        return JSONReply(["accepted": true, "message": message])
      case "check_password":
        return JSONReply(["accepted": true, "message": "Password is correct"])
      default:
        throw APIError(400, "Invalid type")
      }
    }
  }

  private static func lockedOut(_ wait: Int) -> APIError {
    APIError(403, "Too many invalid login attempts. Try again in \(wait) seconds")
  }

  /// Replaces an old-format or old-cost hash after a successful login. Unless the password
  /// changed meanwhile; a failed save keeps the old hash, which still works, for next time.
  private static func upgradeHash(
    of account: Account, to hash: String, salt: String, _ context: ServerContext,
    _ state: inout ServerState
  ) {
    guard var current = state.accounts.account(account.email),
      current.passwordHash == account.passwordHash
    else { return }
    current.salt = salt
    current.passwordHash = hash
    var accounts = state.accounts
    accounts.put(current)
    if let store = context.store {
      do throws(FileError) { try store.saveAccounts(accounts) } catch { return }
    }
    state.accounts = accounts
  }

  /// `valid_seconds`: default seven days, at most a year (-1, forever at the real server, also
  /// gets a year); 0, below -1 and non-numbers are a 422.
  static func validSeconds(_ parameters: RequestParameters) throws(APIError) -> Int {
    guard let text = parameters["valid_seconds"] else { return defaultValidSeconds }
    guard let seconds = RequestParameters.parseJavaInteger(text, bits: 64),
      seconds == -1 || seconds > 0
    else { throw APIError(422, "Invalid value for 'valid_seconds'") }
    return seconds == -1 ? maxValidSeconds : min(seconds, maxValidSeconds)
  }

  private static func issueToken(
    for account: Account, seconds: Int, now: Date, _ context: ServerContext,
    _ state: inout ServerState
  ) throws(APIError) -> String {
    let token = TokenBook.makeToken()
    var tokens = state.tokens
    tokens.dropExpired(now: now)
    let expires = now.addingTimeInterval(TimeInterval(min(seconds, maxValidSeconds)))
    tokens.add(token: token, record: TokenBook.Record(email: account.email, expires: expires))
    if let store = context.store {
      do throws(FileError) { try store.saveTokens(tokens) } catch {
        throw ServerContext.saveFailed(error)
      }
    }
    state.tokens = tokens
    return token
  }
}
