import Foundation
import SusiCore
import SusiFiles
import SusiHTTPClient
import SusiHTTPTypes
import SusiTLS

/// Why an effect failed, in the terms `requestFailed` reports (`RequestError`).
///
/// Messages name the endpoint by path only: a URL's query string can hold a token, and no
/// message ever carries a password or a token.
struct RunnerFailure: Error, Equatable, Sendable {
  var kind: RequestErrorKind
  var status: Int?
  var message: String

  init(_ kind: RequestErrorKind, status: Int? = nil, _ message: String) {
    self.kind = kind
    self.status = status
    self.message = message
  }

  /// The error as the result action carries it, scrubbed once more for safety.
  var requestError: RequestError {
    RequestError(kind: kind, status: status, message: Redaction.scrub(message))
  }

  /// This failure with each of `secrets` (a password, a token) blanked out of its message: a
  /// server may echo what it was sent in an error page, and results go to the log.
  func hiding(_ secrets: [String]) -> RunnerFailure {
    var failure = self
    for secret in secrets where secret.count >= 4 {
      for form in Self.spellings(of: secret) {
        failure.message = failure.message.replacingOccurrences(of: form, with: Secret.redactedText)
      }
    }
    return failure
  }

  /// The ways a server may echo a secret it was sent: as is, percent-encoded as we send it,
  /// with `+` for spaces as forms have it, and with lower-case hex digits; longest first, so
  /// no part of a longer spelling is left behind.
  static func spellings(of secret: String) -> [String] {
    let encoded = URLEncodedForm.percentEncode(secret)
    var lowerHex = ""
    var rest = Substring(encoded)
    while let percent = rest.firstIndex(of: "%") {
      lowerHex += rest[..<percent]
      let escape = rest[percent...].prefix(3)
      lowerHex += escape.lowercased()
      rest = rest[escape.endIndex...]
    }
    lowerHex += rest
    let forms = [
      secret, encoded, encoded.replacingOccurrences(of: "%20", with: "+"), lowerHex,
      lowerHex.replacingOccurrences(of: "%20", with: "+"),
    ]
    return Array(Set(forms)).sorted { $0.count > $1.count }
  }

  /// Does `work` on the runner's private files (credentials, the image cache), its failure as
  /// an `io` failure: `PrivateFile` refuses, with a fix-it message, a secret's file that others
  /// may read or write, or that another user owns.
  static func io<T>(_ work: @autoclosure () throws(PrivateFile.Failure) -> T)
    throws(RunnerFailure) -> T
  {
    do { return try work() } catch { throw RunnerFailure(.io, error.message) }
  }

  static let cancelled = RunnerFailure(.cancelled, "the request was cancelled")

  /// The failure of a request replaced by the same request of event `seq`.
  static func superseded(by seq: Int) -> RunnerFailure {
    RunnerFailure(.superseded, "replaced by the same request of event \(seq)")
  }

  /// The failure for a transport error on a request to `where` (a URL without its query).
  static func transport(_ error: TransportError, _ place: String) -> RunnerFailure {
    switch error {
    case .cannotConnect(let reason):
      RunnerFailure(
        .network, "cannot reach \(place): \(reason); check the address and the network")
    case .connectionLost(let reason):
      RunnerFailure(.network, "the connection to \(place) broke: \(reason)")
    case .timedOut:
      RunnerFailure(.timeout, "\(place) did not answer in time; try again later")
    case .tooLarge(let limit):
      RunnerFailure(.tooLarge, "the reply from \(place) is larger than \(limit) bytes")
    case .cancelled:
      .cancelled
    case .invalidURL(let reason):
      RunnerFailure(.network, "cannot request \(place): \(reason)")
    case .refused(let reason):
      RunnerFailure(.network, reason)
    case .failed(let reason):
      RunnerFailure(.network, "the request to \(place) failed: \(reason)")
    case .tls(let failure):
      RunnerFailure(
        Self.kind(of: failure), "cannot connect securely to \(place): \(failure.sentence)")
    }
  }

  /// The `requestFailed` kind that names a TLS failure's cause.
  static func kind(of failure: TLSFailure) -> RequestErrorKind {
    switch failure.kind {
    case .certificateExpired: .certificateExpired
    case .certificateNotYetValid: .certificateNotYetValid
    case .unknownIssuer: .certificateUnknownIssuer
    case .hostMismatch: .certificateHostMismatch
    case .handshakeFailed: .tlsHandshakeFailed
    case .notTLS: .tlsNotSpoken
    }
  }
}
