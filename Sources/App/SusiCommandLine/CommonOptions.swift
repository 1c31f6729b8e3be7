import SusiCore

/// The options every subcommand takes, resolved against the environment.
public struct CommonOptions: Sendable, Equatable {
  /// The SUSI server URL, or nil for the built-in server.
  public var server: String?
  /// Whether `--server` or SUSI_SERVER named a server (`embedded` included): only then does a
  /// start change the server chosen last, which the state keeps.
  public var choosesServer = false
  /// The event log file.
  public var log: String
  /// Where DuckDuckGo-format web searches go; nil = the built-in server's search with the built-in
  /// server, DuckDuckGo otherwise.
  public var websearchURL: String?
  /// Credentials, image cache and the built-in server's data.
  public var stateDirectory: String
  /// When the log forces writes to disk: `always`, `batch` (default) or `never`.
  public var fsync: String
  /// Whether link previews, images and webhooks may reach loopback and private addresses.
  public var allowsPrivateTargets = false
  /// The skill folder the built-in server should read from now on (`--skills DIR`), `bundled`
  /// for the shipped skills, or nil for the one chosen last.
  public var skills: String?
  /// A PEM file of certificates to trust for `https://` besides the system store (a private
  /// CA); nil = the one remembered with the server, if any.
  public var caFile: String?

  public static let specs: [OptionSpec] = [
    OptionSpec(
      "--server", value: "URL", env: "SUSI_SERVER",
      help: "SUSI server to use (default: the built-in server)"),
    OptionSpec(
      "--log", value: "FILE", env: "SUSI_LOG",
      help: "event log to resume and append to (default: STATE-DIR/events.jsonl)"),
    OptionSpec(
      "--websearch-url", value: "URL", env: "SUSI_WEBSEARCH_URL",
      help: "DuckDuckGo-format web search endpoint"),
    OptionSpec(
      "--skills", value: "DIR", env: "SUSI_SKILLS",
      help: "skill folder of the built-in server, kept for later runs; 'bundled' goes back"),
    OptionSpec(
      "--state-dir", value: "DIR", env: "SUSI_STATE_DIR",
      help: "credentials, image cache, built-in server data (default: $XDG_STATE_HOME/susi)"),
    OptionSpec(
      "--fsync", value: "MODE", env: "SUSI_FSYNC",
      help: "log durability: always, batch or never (default: batch)"),
    OptionSpec(
      "--ca-file", value: "FILE",
      help: "trust the CA certificates in FILE (PEM) for https, besides the system store;"
        + " remembered with the server"),
    OptionSpec(
      "--allow-private-targets", env: "SUSI_ALLOW_PRIVATE_TARGETS",
      help:
        "let previews, images, webhooks and skills' console rules reach loopback and private addresses (testing)"
    ),
    OptionSpec("--help", short: "-h", help: "show help"),
    OptionSpec("--version", help: "print the version"),
  ]

  public static let fsyncModes = ["always", "batch", "never"]

  public init(
    server: String? = nil, log: String, websearchURL: String? = nil, stateDirectory: String,
    fsync: String = "batch"
  ) {
    self.server = server
    self.choosesServer = server != nil
    self.log = log
    self.websearchURL = websearchURL
    self.stateDirectory = stateDirectory
    self.fsync = fsync
  }

  /// Resolves the options from the command line, then the environment, then the defaults.
  public static func resolve(_ parsed: ParsedCommandLine, environment: [String: String])
    throws(UsageError) -> CommonOptions
  {
    func pick(_ name: String, _ variable: String) -> String? {
      if let value = parsed.value(name) { return value }
      if let value = environment[variable], !value.isEmpty { return value }
      return nil
    }
    // Errors name where a bad value came from, so one set in the environment can be found.
    func origin(_ name: String, _ variable: String) -> String {
      parsed.has(name) ? name : variable
    }
    var server: String?
    if let text = pick("--server", "SUSI_SERVER") {
      guard let url = Validation.serverURL(text) else {
        throw UsageError(
          "'\(text)' is not a server URL for \(origin("--server", "SUSI_SERVER")); use "
            + "http(s)://host[:port][/path] or 'embedded'")
      }
      server = url == State.embeddedServer ? nil : url
    }
    var websearch: String?
    if let text = pick("--websearch-url", "SUSI_WEBSEARCH_URL") {
      guard Validation.webURL(text) else {
        throw UsageError(
          "'\(text)' is not an http(s) URL for \(origin("--websearch-url", "SUSI_WEBSEARCH_URL"))")
      }
      websearch = text
    }
    let stateDirectory = pick("--state-dir", "SUSI_STATE_DIR") ?? defaultStateDirectory(environment)
    let log = pick("--log", "SUSI_LOG") ?? stateDirectory + "/events.jsonl"
    let fsync = pick("--fsync", "SUSI_FSYNC") ?? "batch"
    guard fsyncModes.contains(fsync) else {
      throw UsageError(
        "\(origin("--fsync", "SUSI_FSYNC")) takes always, batch or never, not '\(fsync)'",
        suggestion: Spelling.closest(to: fsync, in: fsyncModes))
    }
    var options = CommonOptions(
      server: server, log: log, websearchURL: websearch, stateDirectory: stateDirectory,
      fsync: fsync)
    options.choosesServer = pick("--server", "SUSI_SERVER") != nil
    options.skills = pick("--skills", "SUSI_SKILLS")
    if let caFile = parsed.value("--ca-file") {
      guard !caFile.isEmpty else { throw UsageError("--ca-file takes a file of PEM certificates") }
      options.caFile = caFile
    }
    options.allowsPrivateTargets = parsed.has("--allow-private-targets")
    if !options.allowsPrivateTargets, let text = environment["SUSI_ALLOW_PRIVATE_TARGETS"] {
      switch text.lowercased() {
      case "1", "true", "yes": options.allowsPrivateTargets = true
      case "", "0", "false", "no": break
      default: throw UsageError("SUSI_ALLOW_PRIVATE_TARGETS takes 1 or 0, not '\(text)'")
      }
    }
    return options
  }

  /// `$XDG_STATE_HOME/susi`, or `~/.local/state/susi` (a relative XDG value is ignored, as the
  /// spec says).
  public static func defaultStateDirectory(_ environment: [String: String]) -> String {
    if let xdg = environment["XDG_STATE_HOME"], xdg.hasPrefix("/") { return xdg + "/susi" }
    let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "."
    return home + "/.local/state/susi"
  }
}
