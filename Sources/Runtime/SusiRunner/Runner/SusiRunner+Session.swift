import SusiCore
import SusiHTTPTypes
import SusiStore

// Signup, password recovery, login and logout.

extension Endpoints {
  static let login = Endpoint(
    path: "/aaa/login.json", method: .post, access: .anonymous, idempotent: false,
    why: "every login mints a new token, and failed attempts count towards the server's"
      + " lockout (10 per minute), so a blind resend could lock the account")

  static let logout = Endpoint(
    path: "/aaa/login.json", method: .post, access: .user, idempotent: true,
    why: "logout only ends the server-side session; ending it twice changes nothing")

  static let signup = Endpoint(
    path: "/aaa/signup.json", method: .post, access: .anonymous, idempotent: false,
    why: "creates an account and may mail a verification link; a resend is refused with"
      + " 'email is already taken' and can mail the user twice")

  static let recoverPassword = Endpoint(
    path: "/aaa/recoverpassword.json", method: .post, access: .anonymous, idempotent: false,
    why: "each call mails the account a new link for setting a password; a resend can mail"
      + " the user twice")
}

extension SusiRunner.Performer {
  func signup(server: String, email: String, password: Secret) async throws(RunnerFailure) -> Action
  {
    guard !password.isRedacted else { throw Self.passwordNotKept }
    let base = try baseURL(server)
    let reply = try await call(
      APICall(Endpoints.signup, [("signup", email), ("password", password.reveal())]), base: base)
    let message = try AuthDecoder.signup(reply, place: Endpoints.signup.path)
    return .signedUp(Action.SignedUp(email: email, message: message))
  }

  /// Asks the server to mail a link for a new password. A known address is answered 200,
  /// `accepted` saying whether the mail went out (and `message` why not); an unknown one 422,
  /// which is a failure.
  func recoverPassword(server: String, email: String) async throws(RunnerFailure) -> Action {
    let reply = try await call(
      APICall(Endpoints.recoverPassword, [("forgotemail", email)]), base: try baseURL(server))
    let mailed = reply.bool("accepted") ?? false
    let message =
      reply.nonEmptyText("message") ?? (mailed ? "the recovery mail is on its way" : "no mail sent")
    return .passwordRecoveryRequested(
      Action.PasswordRecoveryRequested(email: email, mailed: mailed, message: message))
  }

  /// Logs in with `type=access-token` (hyphen) in a POST form body, and keeps the token in the
  /// credentials file; the result carries only who and until when.
  func login(server: String, email: String, password: Secret, validSeconds: Int?)
    async throws(RunnerFailure) -> Action
  {
    guard !password.isRedacted else { throw Self.passwordNotKept }
    let base = try baseURL(server)
    var parameters = [("login", email), ("password", password.reveal()), ("type", "access-token")]
    if let validSeconds { parameters.append(("valid_seconds", String(validSeconds))) }
    let reply = try await call(APICall(Endpoints.login, parameters), base: base)
    let login = try AuthDecoder.login(reply, place: Endpoints.login.path)
    let expiresAt = login.validSeconds.map { clock.now().adding(milliseconds: Int64($0) * 1000) }
    try credentials.save(
      CredentialsStore.Credentials(
        server: server, email: email, token: login.token, expiresAt: expiresAt))
    return .loggedIn(Action.LoggedIn(email: email, expiresAt: expiresAt))
  }

  /// Drops the token locally, then tells the server (once, briefly; the server never revokes
  /// tokens anyway). Always ends in `loggedOut`.
  func logout(server: String, reason: String?) async -> Action {
    let stored = try? credentials.load(server: server)
    try? credentials.remove(server: server)
    if let stored, !stored.isExpired(at: clock.now()), let base = try? baseURL(server) {
      _ = try? await call(
        APICall(Endpoints.logout, [("logout", "true"), ("access_token", stored.token)]), base: base,
        policy: .never, totalTimeout: timeouts.logout)
    }
    return .loggedOut(Action.LoggedOut(reason: reason))
  }

  /// A password read back from a log is `[redacted]`: sending it would only fail the login.
  static let passwordNotKept = RunnerFailure(
    .notLoggedIn, "the password is not stored anywhere (the log keeps no secrets); enter it again")
}
