/// A failed API call, rendered as a Jetty-style HTML error page with `status`.
///
/// `message` is what the real server passes to `sendError` (and so what shows in the page's
/// `<title>`); `cause` is the Java exception line the real server would print under
/// "Caused by:" when an uncaught exception turned into a 500.
struct APIError: Error, Equatable, Sendable {
  var status: Int
  var message: String
  var cause: String?

  init(_ status: Int, _ message: String, cause: String? = nil) {
    self.status = status
    self.message = message
    self.cause = cause
  }

  /// Jetty's reason text for an uncaught exception.
  static let serverError = "Server Error"

  /// What the real server does with a non-numeric number parameter: an uncaught
  /// NumberFormatException, so a 500.
  static func numberFormat(_ input: String) -> APIError {
    APIError(
      500, serverError, cause: "java.lang.NumberFormatException: For input string: \"\(input)\"")
  }

  /// A number the caller sent that the parameter cannot hold: a client error, so a 400 (the
  /// real server's 500 here would blame the server).
  static func outOfRange(_ name: String, _ input: String) -> APIError {
    APIError(400, "Parameter \(name) is out of range or not a whole number: \(input)")
  }

  /// What the real server does where it dereferences a missing parameter.
  static func nullPointer(_ what: String) -> APIError {
    APIError(500, serverError, cause: "java.lang.NullPointerException (\(what) not given)")
  }

  /// The role check of USER endpoints, for an anonymous caller.
  static let notLoggedIn = APIError(
    401,
    "Base user role not sufficient. Your base user role is 'ANONYMOUS', minimum user role required is 'user'"
  )
}
