public import SusiCore
public import SusiHTTPServer
import SusiHTTPTypes
import SusiStore

/// The body of `GET /state`: the state's canonical JSON streamed in pieces (`StateDocument`),
/// so a large state costs a request little memory.
public struct StateBody: Sendable {
  /// Entries of a large field turned into JSON at a time.
  static let entriesPerPage = StateDocument.entriesPerPage
  let document: StateDocument

  /// The body of `state`; `includesAccess` adds who holds which key.
  public init(state: State, includesAccess: Bool) {
    document = StateDocument(state: state, includesAccess: includesAccess)
  }

  /// A `200 application/json` response that streams this body.
  public var response: HTTPResponse {
    HTTPResponse(status: 200, headers: ["Content-Type": "application/json"]) {
      try await write(to: $0)
    }
  }

  /// Writes the whole document to `body`, piece by piece.
  func write(to body: HTTPBodyWriter) async throws {
    try await document.write { try await body.write($0) }
  }
}
