public import Foundation
public import SusiClock
public import SusiHTTPClient
public import SusiHTTPServer
public import SusiScript

/// How to run the embedded server.
public struct ServerConfiguration: Sendable {
  /// Address to bind; loopback unless told otherwise.
  public var host: String
  /// Port to bind; 0 picks any free port.
  public var port: Int
  /// The data directory: `models/<model>/<group>/<language>/<skill>.txt`, plus optional
  /// `websearch/`, `pages/` and `images/default.jpg`. nil = the bundled default skills.
  public var dataDirectory: URL?
  /// Where accounts, tokens and ratings are saved. nil = keep them in memory only.
  public var stateDirectory: URL?
  /// Seed for answer alternatives; nil = a random seed.
  public var seed: UInt64?
  /// Where token expiry, lockouts and reply dates read the time; tests pass a
  /// `ManualTimeSource`.
  public var clock: any TimeSource
  /// `users.public.signup`: true lets anyone sign up (the embedded default); false answers
  /// 403 `Public signup disabled`.
  public var publicSignup: Bool
  /// Whether signup demands `g-recaptcha-response` (any non-empty value passes; nothing is
  /// sent to Google). Off by default, unlike the real server.
  public var signupCaptcha: Bool
  /// Whether a login after recent failures demands `g-recaptcha-response`. Off by default.
  public var loginCaptcha: Bool
  /// Peer addresses of reverse proxies trusted to name the client in `X-Real-IP` or
  /// `X-Forwarded-For`. From any other peer those headers are ignored, so a caller cannot pick
  /// the address that login lockouts and anonymous identities are keyed on. Empty by default.
  public var trustedProxies: Set<String>
  /// The certificate and key when the server speaks HTTPS (then only HTTPS); nil = HTTP.
  public var tls: HTTPServerTLS?
  /// PBKDF2-HMAC-SHA256 rounds for password hashes (default 600,000). Stored hashes of
  /// another cost still verify and are rehashed at their next successful login.
  public var passwordIterations: Int
  /// Lets `!console:` rules fetch from loopback and private addresses (`susi server
  /// --allow-private-targets`, for testing); off by default: public hosts only.
  public var allowsPrivateConsoleHosts = false
  /// How `!console:` rules reach the network; nil = the project's own HTTP client.
  public var consoleTransport: (any HTTPTransport)?
  /// Limits of a `!console:` rule's fetch and how long its replies are reused.
  public var console = ConsoleService.Configuration()
  /// Limits of a `!javascript:` rule's script.
  public var scriptLimits = ScriptLimits()
  /// Told, one line each, when a skill's rule fails while answering (a script error, an API
  /// without reply); nil = not reported.
  public var ruleWarnings: (@Sendable (String) -> Void)?
  /// Puts a handler in front of the server's (`susi server`'s request log); nil = none.
  public var frontHandler: (@Sendable (any HTTPHandler) -> any HTTPHandler)?
  /// What runs the skill rules that need more than the skill file: `!console:` rules with a
  /// `url` and `!javascript:` rules. Offline by default: such intents are passed over.
  /// nil: console rules fetch through the project's own HTTP client (see `console`,
  /// `allowsPrivateConsoleHosts`) and javascript rules run in the sandboxed script engine.
  public var procedures: (any SkillProcedures)?

  /// A configuration; every argument has the documented default.
  public init(
    host: String = "127.0.0.1", port: Int = 0, dataDirectory: URL? = nil,
    stateDirectory: URL? = nil, seed: UInt64? = nil, clock: any TimeSource = SystemTimeSource(),
    publicSignup: Bool = true, signupCaptcha: Bool = false, loginCaptcha: Bool = false,
    trustedProxies: Set<String> = [],
    passwordIterations: Int = ServerConfiguration.defaultPasswordIterations
  ) {
    self.trustedProxies = trustedProxies
    self.passwordIterations = passwordIterations
    self.host = host
    self.port = port
    self.dataDirectory = dataDirectory
    self.stateDirectory = stateDirectory
    self.seed = seed
    self.clock = clock
    self.publicSignup = publicSignup
    self.signupCaptcha = signupCaptcha
    self.loginCaptcha = loginCaptcha
  }

  /// PBKDF2 rounds for new password hashes unless configured otherwise.
  public static let defaultPasswordIterations = PasswordHasher.defaultIterations

  /// The skills, web-search corpus and pages shipped with `susi`.
  public static var bundledDataDirectory: URL {
    get throws(BundledDataMissing) {
      for candidate in bundledDataCandidates
      where FileManager.default.fileExists(atPath: candidate.appendingPathComponent("models").path)
      {
        return candidate
      }
      throw BundledDataMissing(searched: bundledDataCandidates.map(\.path))
    }
  }

  /// Where the bundled skills may be, in order: beside the executable, as SwiftPM builds them
  /// (`susi_SusiServer.resources/DefaultSkills`), then in an install prefix
  /// (`PREFIX/share/susi/DefaultSkills` for `PREFIX/bin/susi`).
  static var bundledDataCandidates: [URL] {
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    let folder = executable.deletingLastPathComponent()
    return [
      folder.appendingPathComponent("susi_SusiServer.resources/DefaultSkills"),
      folder.deletingLastPathComponent().appendingPathComponent("share/susi/DefaultSkills"),
    ]
  }

  /// The bundled skills could not be found (a `susi` copied without them).
  public struct BundledDataMissing: Error, CustomStringConvertible {
    public var searched: [String]
    public var description: String {
      "the built-in skills are not installed (looked in \(searched.joined(separator: " and "))); "
        + "copy the folder Sources/BuiltInServer/SusiServer/DefaultSkills of the susi sources to one of those places "
        + "(or give 'susi server' another skill folder with --data DIR)"
    }
  }

  /// `$XDG_STATE_HOME/susi/server`, or `~/.local/state/susi/server` when XDG_STATE_HOME is unset
  /// or not absolute (as the XDG spec says to ignore relative paths).
  public static func defaultStateDirectory(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> URL {
    if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
      return URL(fileURLWithPath: state).appendingPathComponent("susi/server")
    }
    let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
    return URL(fileURLWithPath: home).appendingPathComponent(".local/state/susi/server")
  }
}
