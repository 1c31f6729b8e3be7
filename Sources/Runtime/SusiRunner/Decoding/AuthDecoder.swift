import SusiCore
import SusiHTTPTypes
import SusiJSON

/// Reads the replies of `/aaa/login.json` and `/aaa/signup.json`.
enum AuthDecoder {
  /// What a successful `type=access-token` login gives.
  struct Login: Equatable {
    var token: String
    /// Seconds the token lives; nil = forever (`"valid_seconds": "forever"`, or -1).
    var validSeconds: Int?
  }

  /// The server's default token lifetime (7 days), when the reply does not say.
  static let defaultValidSeconds = 604_800

  static func login(_ object: JSONObject, place: String) throws(RunnerFailure) -> Login {
    try ReplyReader.requireAccepted(object, place: place)
    guard let token = object["access_token"]?.string, !token.isEmpty else {
      throw RunnerFailure(.badResponse, "the login reply from \(place) holds no access token")
    }
    let validSeconds: Int?
    switch object["valid_seconds"] {
    case nil, .null?:
      validSeconds = defaultValidSeconds
    case .string(let text)? where text.trimmingSpaces().lowercased() == "forever":
      validSeconds = nil
    case let value?:
      guard let seconds = value.lenientInt else {
        throw RunnerFailure(
          .badResponse, "the login reply from \(place) has an unreadable valid_seconds")
      }
      validSeconds = seconds < 0 ? nil : seconds
    }
    return Login(token: token, validSeconds: validSeconds)
  }

  /// The server's message after a signup it accepted.
  static func signup(_ object: JSONObject, place: String) throws(RunnerFailure) -> String {
    try ReplyReader.requireAccepted(object, place: place)
    return object.nonEmptyText("message") ?? "signed up"
  }
}
