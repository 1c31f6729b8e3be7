import Glibc
public import SusiClock

extension HTTPServer {
  /// Where the server listens, what it allows, and which clock it measures time with.
  public struct Configuration: Sendable {
    /// The IPv4 or IPv6 address to listen on; the default accepts only local clients.
    public var host = "127.0.0.1"
    /// The TCP port; 0 picks any free port (see the return value of `HTTPServer.start()`).
    public var port = 0
    /// Size and count limits.
    public var limits = HTTPLimits()
    /// Timeouts.
    public var timeouts = HTTPTimeouts()
    /// Event-loop threads; each owns a share of the connections. Defaults to one per CPU core
    /// (at most four).
    public var eventLoopCount = Configuration.defaultEventLoopCount
    /// The listen backlog: connections the kernel completes before the server accepts them.
    public var backlog: Int32 = 511
    /// The time source for every timeout; tests pass a `ManualTimeSource`.
    public var clock: any TimeSource = SystemTimeSource()
    /// The certificate and key when the server speaks HTTPS (then only HTTPS); nil = plain HTTP.
    public var tls: HTTPServerTLS?
    /// Looks up which local user each loopback client runs as (see `HTTPRequest.loopbackUserID`),
    /// once per connection, for servers that keep something per caller.
    public var identifiesLoopbackUsers = false

    /// Creates a configuration; every argument has the documented default.
    public init(
      host: String = "127.0.0.1", port: Int = 0, limits: HTTPLimits = HTTPLimits(),
      timeouts: HTTPTimeouts = HTTPTimeouts(),
      eventLoopCount: Int = Configuration.defaultEventLoopCount,
      backlog: Int32 = 511, clock: any TimeSource = SystemTimeSource(), tls: HTTPServerTLS? = nil
    ) {
      self.host = host
      self.port = port
      self.limits = limits
      self.timeouts = timeouts
      self.eventLoopCount = eventLoopCount
      self.backlog = backlog
      self.clock = clock
      self.tls = tls
    }

    /// One loop per online CPU, between one and four.
    public static var defaultEventLoopCount: Int {
      max(1, min(4, sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }
  }
}
