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

  static func handle(_ request: EndpointRequest) throws(APIError) -> JSONReply {
    let parameters = request.parameters
    if parameters.bool("checkLogin") { return checkLogin(request) }
    if parameters.bool("logout") {
      // The real server only checks that the parameter is there; it never revokes the token.
      guard parameters["access_token"] != nil else { throw APIError(401, "Unauthorized") }
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
    let keys = LoginFailures.keys(address: request.clientHost, account: login)
    let now = request.now
    let captchaGiven = request.parameters.nonEmpty("g-recaptcha-response") != nil
    let account = try context.withState { (state: inout ServerState) throws(APIError) -> Account? in
      if let wait = state.loginFailures.lockout(keys, now: now) { throw lockedOut(wait) }
      if context.configuration.loginCaptcha, !captchaGiven,
        state.loginFailures.hasRecentFailures(keys, now: now)
      {
        return nil
      }
      state.loginFailures.record(keys, now: now)
      guard let account = state.accounts.account(login) else {
        throw APIError(401, "Invalid credentials")
      }
      return account
    }
    guard let account else {
      return JSONReply(["accepted": false, "message": "Please verify recaptcha"])
    }

    let iterations = context.configuration.passwordIterations
    let verdict = PasswordHasher.verify(
      password, salt: account.salt, stored: account.passwordHash, iterations: iterations)
    guard case .correct(let needsRehash) = verdict else {
      throw APIError(422, "Invalid credentials")
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
          "accepted": true, "valid_seconds": seconds == -1 ? "forever" : .int(seconds),
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

  /// `valid_seconds`: default seven days, -1 forever; 0, below -1 and non-numbers are a 422.
  static func validSeconds(_ parameters: RequestParameters) throws(APIError) -> Int {
    guard let text = parameters["valid_seconds"] else { return defaultValidSeconds }
    guard let seconds = RequestParameters.parseJavaInteger(text, bits: 64),
      seconds == -1 || seconds > 0
    else { throw APIError(422, "Invalid value for 'valid_seconds'") }
    return seconds
  }

  private static func issueToken(
    for account: Account, seconds: Int, now: Date, _ context: ServerContext,
    _ state: inout ServerState
  ) throws(APIError) -> String {
    let token = TokenBook.makeToken()
    var tokens = state.tokens
    tokens.dropExpired(now: now)
    let expires = seconds == -1 ? nil : now.addingTimeInterval(TimeInterval(min(seconds, 1 << 40)))
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
