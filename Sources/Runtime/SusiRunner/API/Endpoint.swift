import SusiHTTPTypes

/// One SUSI API endpoint: where it is, how it is called, who may call it, and whether sending
/// it twice is harmless.
struct Endpoint: Sendable, Equatable {
  /// Who the server lets in.
  enum Access: Sendable, Equatable {
    /// Anyone; no token is sent.
    case anonymous
    /// Anyone; the token is sent when we hold one (the answer then belongs to the user).
    case tokenIfLoggedIn
    /// Only a logged-in user (minimum role USER): no token means no request, and a 401 means
    /// the server no longer accepts our token.
    case user
  }

  var path: String
  /// `GET` for reads; `POST` with a form body wherever a password or a write is involved, so
  /// no secret travels in a URL.
  var method: HTTPMethod
  var access: Access
  /// True when sending the request twice leaves the server as sending it once. Only such
  /// requests are sent again after an attempt whose outcome is unknown (sent, then timeout or
  /// reset, or a 5xx other than 503). `why` says what makes it so.
  var idempotent: Bool
  var why: String
}

/// The SUSI API as this client uses it, in one table.
enum Endpoints {
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

  static let groups = Endpoint(
    path: "/cms/getGroups.json", method: .get, access: .anonymous, idempotent: true,
    why: "read-only")

  static let skillList = Endpoint(
    path: "/cms/getSkillList.json", method: .get, access: .anonymous, idempotent: true,
    why: "read-only")

  static let skillMetadata = Endpoint(
    path: "/cms/getSkillMetadata.json", method: .get, access: .anonymous, idempotent: true,
    why: "read-only")

  static let rateSkill = Endpoint(
    path: "/cms/fiveStarRateSkill.json", method: .post, access: .user, idempotent: true,
    why: "one rating per user and skill: a repeat replaces the user's stars with the same"
      + " value (old bucket -1, new bucket +1), so the aggregate ends up the same")

  static let userRating = Endpoint(
    path: "/cms/getRatingByUser.json", method: .get, access: .user, idempotent: true,
    why: "read-only")

  static let changeSettings = Endpoint(
    path: "/aaa/changeUserSettings.json", method: .post, access: .user, idempotent: true,
    why: "sets named keys to given values; setting them again to the same values is a no-op")

  static let listSettings = Endpoint(
    path: "/aaa/listUserSettings.json", method: .get, access: .user, idempotent: true,
    why: "read-only")

  static let chat = Endpoint(
    path: "/susi/chat.json", method: .get, access: .tokenIfLoggedIn, idempotent: false,
    why: "each query becomes a new exchange in the user's memory, counts as skill usage and"
      + " may get a different (random) answer; a resend would duplicate the conversation")

  static let memory = Endpoint(
    path: "/susi/memory.json", method: .get, access: .tokenIfLoggedIn, idempotent: true,
    why: "read-only")

  /// Requests to other hosts than the SUSI server.
  static let webSearch = Endpoint(
    path: "websearch", method: .get, access: .anonymous, idempotent: true,
    why: "a read-only query to the search service")

  static let linkPreview = Endpoint(
    path: "link preview", method: .get, access: .anonymous, idempotent: true,
    why: "a plain GET of a public page")

  static let image = Endpoint(
    path: "image", method: .get, access: .anonymous, idempotent: true,
    why: "a plain GET of an image")

  /// Every endpoint, for documentation and tests.
  static let all: [Endpoint] = [
    login, logout, signup, recoverPassword, groups, skillList, skillMetadata, rateSkill, userRating,
    changeSettings, listSettings, chat, memory, webSearch, linkPreview, image,
  ]
}
