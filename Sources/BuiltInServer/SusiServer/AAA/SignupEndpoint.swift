import Foundation
import SusiJSON

/// `/aaa/signup.json`: creates accounts and tells the password rule.
///
/// Deviation from the real server, on purpose: public signup is on and activates the account at
/// once, and no captcha is asked for (unless `ServerConfiguration.signupCaptcha` is set), since
/// there is neither a mail server nor Google to ask offline. The password rule and its 422s are
/// the real ones. The first account becomes the super-admin, as on the real server.
enum SignupEndpoint {
  static let passwordPattern = "^((?=.*\\d)(?=.*[A-Z])(?=.*\\W).{8,64})$"
  static let passwordTooltip =
    "Enter a combination of atleast 8 characters and atleast one special character, one number and one capital letter"

  static func handle(_ request: EndpointRequest) throws(APIError) -> JSONReply {
    let parameters = request.parameters
    if parameters.bool("getParameters") {
      return JSONReply([
        "accepted": true, "message": "Success: showing parameters",
        "regex": .string(passwordPattern), "regexTooltip": .string(passwordTooltip),
      ])
    }
    let context = request.context
    guard context.configuration.publicSignup else { throw APIError(403, "Public signup disabled") }
    guard let email = parameters.nonEmpty("signup"), let password = parameters.nonEmpty("password")
    else { throw APIError(422, "signup or password empty") }
    if context.configuration.signupCaptcha && parameters.nonEmpty("g-recaptcha-response") == nil {
      throw APIError(422, "Please verify recaptcha")
    }
    guard isValidEmail(email) else { throw APIError(422, "No valid email address") }
    guard password != email, isValidPassword(password) else {
      throw APIError(422, passwordTooltip)
    }
    // The slow hash is made before taking the state lock, so other requests do not wait on it.
    let salt = PasswordHasher.makeSalt()
    let passwordHash = PasswordHasher.hash(
      password, salt: salt, iterations: context.configuration.passwordIterations)
    let caller = request.caller
    let now = request.now
    try context.withState { (state: inout ServerState) throws(APIError) in
      if let wait = state.loginFailures.signupLockout(caller, now: now) {
        throw APIError(403, "Too many signups of taken addresses. Try again in \(wait) seconds")
      }
      guard state.accounts.account(email) == nil else {
        state.loginFailures.recordTakenSignup(caller, now: now)
        throw APIError(422, "email is already taken")
      }
      var accounts = state.accounts
      accounts.put(
        Account(
          email: email, role: accounts.isEmpty ? .superadmin : .user, salt: salt,
          passwordHash: passwordHash, created: request.now, settings: [:]))
      if let store = context.store {
        do throws(FileError) { try store.saveAccounts(accounts) } catch {
          throw ServerContext.saveFailed(error)
        }
      }
      state.accounts = accounts
    }
    return JSONReply(["accepted": true, "message": "You successfully signed-up!"])
  }

  /// A plain `local@domain.tld` check: one `@`, no spaces, a dot in the domain.
  static func isValidEmail(_ email: String) -> Bool {
    let parts = email.split(separator: "@", omittingEmptySubsequences: false)
    guard parts.count == 2, !parts[0].isEmpty, email.count <= 254,
      !email.contains(where: { $0.isWhitespace || $0.isNewline || $0 == "<" || $0 == ">" })
    else { return false }
    let domain = parts[1].split(separator: ".", omittingEmptySubsequences: false)
    return domain.count >= 2 && domain.allSatisfy { !$0.isEmpty }
  }

  /// The real rule: 8–64 characters with a digit, a capital letter and a non-word character.
  static func isValidPassword(_ password: String) -> Bool {
    guard let regex = try? NSRegularExpression(pattern: passwordPattern) else { return false }
    let range = NSRange(password.startIndex..., in: password)
    return regex.firstMatch(in: password, range: range) != nil
  }
}
