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
  /// Most requests answered on one keep-alive connection before the server closes it.
  public var maxRequestsPerConnection: Int
  /// Bytes of pipelined requests the server buffers while it answers an earlier one; beyond
  /// this it stops reading from that connection until it catches up.
  public var maxPipelinedBytes: Int
  /// Bytes of a streamed response the server buffers for a slow client before
  /// `HTTPBodyWriter.write` waits for the client to catch up.
  public var maxBufferedResponseBytes: Int

  /// Creates limits; every argument has the documented default.
  public init(
    maxRequestLineBytes: Int = 8 * 1024,
    maxHeaderBytes: Int = 16 * 1024,
    maxHeaderCount: Int = 100,
    maxBodyBytes: Int = 1024 * 1024,
    maxConnections: Int = 256,
    maxRequestsPerConnection: Int = 10_000,
    maxPipelinedBytes: Int = 64 * 1024,
    maxBufferedResponseBytes: Int = 256 * 1024
  ) {
    self.maxRequestLineBytes = maxRequestLineBytes
    self.maxHeaderBytes = maxHeaderBytes
    self.maxHeaderCount = maxHeaderCount
    self.maxBodyBytes = maxBodyBytes
    self.maxConnections = maxConnections
    self.maxRequestsPerConnection = maxRequestsPerConnection
    self.maxPipelinedBytes = maxPipelinedBytes
    self.maxBufferedResponseBytes = maxBufferedResponseBytes
  }
}
