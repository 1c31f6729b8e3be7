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

/// The SUSI API as this client uses it: each domain's endpoints stand beside the requests that
/// call them, in the runner's `EffectPerformer+Domain.swift` (web search, link previews and
/// images go to other hosts).
enum Endpoints {}
