/// Size and count limits the server enforces on every connection and request.
///
/// The defaults follow common servers (nginx, Apache, Node): big enough for any real client of
/// ours, small enough that one peer cannot make the server hold much memory.
public struct HTTPLimits: Sendable, Equatable {
  /// Longest request line (method, target, version) in bytes; longer is answered 414.
  public var maxRequestLineBytes: Int
  /// Largest header section in bytes, request line excluded; larger is answered 431.
  public var maxHeaderBytes: Int
  /// Most header fields in one request; more are answered 431.
  public var maxHeaderCount: Int
  /// Largest request body in bytes; larger is answered 413 and the connection closed.
  public var maxBodyBytes: Int
  /// Most open connections; further ones are answered 503 and closed at once.
  public var maxConnections: Int
  /// Most open connections from one client address (0: no such limit); further ones from it
  /// are answered 503 and closed at once, so one address cannot take every slot. Behind a
  /// reverse proxy every client has the proxy's address: raise it or set 0 there.
  public var maxConnectionsPerAddress: Int
  /// Of `maxConnections`, slots kept for priority requests: a connection opened while more
  /// than `maxConnections - reservedConnections` are open serves only requests the handler's
  /// `isPriority` accepts, and answers others 503 with `Retry-After`.
  public var reservedConnections: Int
  /// Most requests answered on one keep-alive connection before the server closes it.
  public var maxRequestsPerConnection: Int
  /// Bytes of pipelined requests the server buffers while it answers an earlier one; beyond
  /// this it stops reading from that connection until it catches up.
  public var maxPipelinedBytes: Int
  /// Bytes of a streamed response the server buffers for a slow client before
  /// `HTTPBodyWriter.write` waits for the client to catch up.
  public var maxBufferedResponseBytes: Int

  /// Creates limits; every argument has the documented default (`reservedConnections`:
  /// one sixteenth of `maxConnections`, so 16).
  public init(
    maxRequestLineBytes: Int = 8 * 1024,
    maxHeaderBytes: Int = 16 * 1024,
    maxHeaderCount: Int = 100,
    maxBodyBytes: Int = 1024 * 1024,
    maxConnections: Int = 256,
    maxConnectionsPerAddress: Int = 128,
    reservedConnections: Int? = nil,
    maxRequestsPerConnection: Int = 10_000,
    maxPipelinedBytes: Int = 64 * 1024,
    maxBufferedResponseBytes: Int = 256 * 1024
  ) {
    self.maxRequestLineBytes = maxRequestLineBytes
    self.maxHeaderBytes = maxHeaderBytes
    self.maxHeaderCount = maxHeaderCount
    self.maxBodyBytes = maxBodyBytes
    self.maxConnections = maxConnections
    self.maxConnectionsPerAddress = maxConnectionsPerAddress
    // One sixteenth by default: 16 of 256, none for a handful of connections.
    self.reservedConnections = reservedConnections ?? maxConnections / 16
    self.maxRequestsPerConnection = maxRequestsPerConnection
    self.maxPipelinedBytes = maxPipelinedBytes
    self.maxBufferedResponseBytes = maxBufferedResponseBytes
  }
}
