public import SusiHTTPTypes

/// The body of a streamed response: a closure that writes it piece by piece.
///
/// The server runs `produce` after sending the response head, and sends what it writes with
/// chunked transfer-encoding. When `produce` returns, the body ends and the connection stays
/// open for the next request; when it throws, the server cuts the connection (the status was
/// already sent, so an abrupt end is the only way left to tell the client the body is incomplete).
/// When the client goes away or the server shuts down, the task running `produce` is cancelled
/// and every later write throws `HTTPStreamError` with code `.closed`.
public struct HTTPBodyStream: Sendable {
  /// Writes the body through the given writer.
  public let produce: @Sendable (HTTPBodyWriter) async throws -> Void

  /// Creates a stream from its producing closure.
  public init(_ produce: @escaping @Sendable (HTTPBodyWriter) async throws -> Void) {
    self.produce = produce
  }
}

/// Sends the parts of a streamed body to the client.
///
/// The server hands one to `HTTPBodyStream.produce`. Tests can build one from a closure that
/// collects what is written.
public struct HTTPBodyWriter: Sendable {
  private let sink: @Sendable ([UInt8]) async throws -> Void

  /// Creates a writer that passes every non-empty write to `sink`.
  public init(_ sink: @escaping @Sendable ([UInt8]) async throws -> Void) {
    self.sink = sink
  }

  /// Sends `bytes` as the next part of the body. Waits while the client is behind on reading;
  /// throws `HTTPStreamError` (`.closed`) once the client is gone or the server is stopping.
  public func write(_ bytes: [UInt8]) async throws {
    if bytes.isEmpty { return }
    try await sink(bytes)
  }

  /// Sends `text` as UTF-8.
  public func write(_ text: String) async throws {
    try await write(Array(text.utf8))
  }
}

/// Why a streamed write failed.
public struct HTTPStreamError: Error, Equatable, Sendable, CustomStringConvertible {
  /// What went wrong.
  public enum Code: String, Sendable {
    /// The client went away or the server is shutting down; stop producing.
    case closed
  }

  /// What failed, for code that reacts to it.
  public let code: Code

  /// What failed, for a person.
  public var description: String {
    switch code {
    case .closed: "the client closed the connection or the server is shutting down"
    }
  }

  static let closed = HTTPStreamError(code: .closed)
}

extension HTTPResponse {
  /// A response whose body is written by `produce` while it is sent (chunked transfer-encoding).
  ///
  /// ```swift
  /// HTTPResponse(status: 200, headers: ["Content-Type": "text/plain"]) { body in
  ///   for line in lines { try await body.write(line + "\n") }
  /// }
  /// ```
  public init(
    status: Int, headers: HTTPHeaders = [:],
    stream produce: @escaping @Sendable (HTTPBodyWriter) async throws -> Void
  ) {
    self.init(status: status, headers: headers, body: [])
    self.bodyStream = HTTPBodyStream(produce)
  }

}
