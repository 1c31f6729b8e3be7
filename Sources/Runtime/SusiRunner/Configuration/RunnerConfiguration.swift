public import SusiClock
public import SusiHTTPClient

/// Everything the effects runner needs from the outside world, injected so tests can replace
/// the network, the clock and the machine's settings.
///
/// ```swift
/// var configuration = RunnerConfiguration(stateDirectory: stateDir)
/// configuration.embeddedServerURL = server.baseURL
/// let runner = SusiRunner(configuration: configuration)
/// ```
public struct RunnerConfiguration: Sendable {
  /// The base URL of the embedded server (`http://127.0.0.1:PORT`), used for effects whose
  /// server is `embedded`; nil when it is not running.
  public var embeddedServerURL: String?
  /// Where web searches go (DuckDuckGo's Instant Answer API or a compatible service).
  public var websearchURL: String
  /// Holds the credentials folder and the image cache.
  public var stateDirectory: String
  /// Told of every HTTP attempt, secrets masked (`--verbose`).
  public var trace: (@Sendable (String) -> Void)?
  /// The image cache's folder; nil = `stateDirectory/images`.
  public var imageDirectory: String?
  /// How long requests may take.
  public var timeouts: Timeouts
  /// When failed requests are sent again.
  public var retryPolicy: RetryPolicy
  /// How many effects do I/O at once; the rest wait in order.
  public var concurrencyLimit: Int
  /// Time for backoff, deadlines, planned answers and token expiry.
  public var clock: any TimeSource
  /// The network; nil = a `SocketTransport` with `connectionsPerOrigin` connections.
  public var transport: (any HTTPTransport)?
  /// Most connections open at once to one server (keep-alive pool bound).
  public var connectionsPerOrigin: Int
  /// A PEM file of certificates trusted for `https://` besides the system store (`--ca-file`).
  public var caFile: String?
  /// The proxies requests go through (`ProxySettings(environment:)`); none by default.
  public var proxies: ProxySettings
  /// Which addresses link previews and image downloads may reach. The embedded server's and
  /// the web search's origins are always allowed.
  public var targetPolicy: TargetPolicy
  /// Least time between two calls to the same SUSI path, in milliseconds (0 = none; a server
  /// that refuses for frequency still gets its calls spaced, see `PathPacer`).
  public var pacingMilliseconds: Int64
  /// Seed for backoff jitter; nil = a random seed.
  public var randomSeed: UInt64?
  /// Minutes to add to local time to get UTC, as JavaScript's `getTimezoneOffset()` reports it
  /// (UTC+1 → -60); nil = the machine's.
  public var timezoneOffsetMinutes: Int?
  /// The language for chat when the effect names none (`de`); nil = from `LC_ALL`/`LANG`.
  public var machineLanguage: String?
  /// What chat requests report as `device_type`.
  public var deviceType: String
  /// `User-Agent` of every request.
  public var userAgent: String
  /// The largest reply body read from an API, web search or page.
  public var maximumBodyBytes: Int
  /// The largest image the cache downloads.
  public var maximumImageBytes: Int
  /// How many bytes the image cache keeps on disk before evicting the least recently used.
  public var imageCacheBytes: Int
  /// How long a server's login file, once found missing, counts as missing before it is looked
  /// for again (another process may log in meanwhile); 0 = look every time.
  public var missingLoginRecheck: Duration

  /// A configuration with the defaults: our socket transport with 8 connections a server, the
  /// system clock, 32 effects at once.
  public init(
    stateDirectory: String, embeddedServerURL: String? = nil,
    websearchURL: String = RunnerConfiguration.defaultWebsearchURL
  ) {
    self.stateDirectory = stateDirectory
    self.embeddedServerURL = embeddedServerURL
    self.websearchURL = websearchURL
    timeouts = Timeouts()
    retryPolicy = RetryPolicy()
    // Four per connection: beyond the connections, GETs are pipelined on them (the HTTP
    // client's pipeline depth); other requests wait in the client for a connection.
    concurrencyLimit = 32
    clock = SystemTimeSource()
    transport = nil
    connectionsPerOrigin = 8
    caFile = nil
    proxies = ProxySettings()
    targetPolicy = TargetPolicy()
    pacingMilliseconds = 0
    randomSeed = nil
    timezoneOffsetMinutes = nil
    machineLanguage = nil
    deviceType = "Linux"
    userAgent = "susi"
    maximumBodyBytes = 1 << 20
    maximumImageBytes = 8 << 20
    imageCacheBytes = 64 << 20
    missingLoginRecheck = .milliseconds(10)
  }

  /// DuckDuckGo's Instant Answer API.
  public static let defaultWebsearchURL = "https://api.duckduckgo.com/"
}

/// How long requests may take, in seconds.
public struct Timeouts: Sendable, Equatable {
  /// Longest wait for a connection or for the next bytes of a reply.
  public var idle: Double
  /// Longest time for one API request, from sending to the last byte.
  public var total: Double
  /// Longest time for fetching a page for a link preview.
  public var linkPreview: Double
  /// Longest time for downloading one image.
  public var image: Double
  /// Longest time for telling the server about a logout (best effort).
  public var logout: Double

  /// Timeouts in seconds.
  public init(
    idle: Double = 15, total: Double = 30, linkPreview: Double = 10, image: Double = 30,
    logout: Double = 5
  ) {
    self.idle = idle
    self.total = total
    self.linkPreview = linkPreview
    self.image = image
    self.logout = logout
  }
}
