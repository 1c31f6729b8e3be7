/// How long the server waits for each part of an exchange, measured with the configured
/// `TimeSource`'s monotonic time.
public struct HTTPTimeouts: Sendable, Equatable {
  /// From the moment a connection is ready for a request (just accepted, or the previous
  /// response sent) until the request head is complete; then 408 and close. A total: bytes that
  /// trickle in never extend it, which is what stops slow-header ("slowloris") clients.
  public var head: Duration
  /// From a complete head until the whole body has arrived; then 408 and close.
  public var body: Duration
  /// How long a keep-alive connection may sit idle, with no byte of a next request, before the
  /// server closes it quietly.
  public var idle: Duration
  /// How long pending response bytes may go unread by the client before the server gives up
  /// and closes the connection.
  public var write: Duration
  /// How long `HTTPServer.shutdown()` lets in-flight requests finish before closing their
  /// connections anyway.
  public var shutdownGrace: Duration
  /// How long a connection being closed keeps reading and discarding what the client still
  /// sends, so that the final response is not lost to a TCP reset.
  public var linger: Duration

  /// Creates timeouts; every argument has the documented default.
  public init(
    head: Duration = .seconds(10),
    body: Duration = .seconds(10),
    idle: Duration = .seconds(5),
    write: Duration = .seconds(30),
    shutdownGrace: Duration = .seconds(10),
    linger: Duration = .seconds(2)
  ) {
    self.head = head
    self.body = body
    self.idle = idle
    self.write = write
    self.shutdownGrace = shutdownGrace
    self.linger = linger
  }
}
