import Foundation
import SusiCore

/// The options every subcommand takes, resolved against the environment.
public struct CommonOptions: Sendable, Equatable {
  /// The SUSI server URL, or nil for the built-in server.
  public var server: String?
  /// Where `server` came from: `--server` and SUSI_SERVER apply to this run only; a remembered
  /// choice (`susi server use`) holds until another is made.
  public var serverSource: ServerSource = .builtIn
  /// The event log file.
  public var log: String
  /// Where DuckDuckGo-format web searches go; nil = the built-in server's search with the built-in
  /// server, DuckDuckGo otherwise.
  public var websearchURL: String?
  /// Credentials, the remembered server and the built-in server's data.
  public var stateDirectory: String
  /// The image cache: `$XDG_CACHE_HOME/susi/images`; `STATE-DIR/images` with a state folder
  /// given by `--state-dir` or SUSI_STATE_DIR, or when a cache is already there (before the
  /// cache moved out of the state folder).
  public var imageDirectory: String
  /// A PEM file of CA certificates to trust for https (the config file's `ca-file`).
  public var caFile: String?
  /// When the log forces writes to disk: `always`, `batch` (default) or `never`.
  public var fsync: String
  /// Whether link previews, images and webhooks may reach loopback and private addresses.
  public var allowsPrivateTargets = false
  /// The skill folder the built-in server should read from now on (`--skills DIR`), `bundled`
  /// for the shipped skills, or nil for the one chosen last.
  public var skills: String?
  /// `--quiet`: only the answer or the data, no notes.
  public var quiet = false
  /// `--verbose`: each request, its status and its time on standard error.
  public var verbose = false
  /// `--color` (`--no-color` = never); with `auto`, NO_COLOR and TERM=dumb turn colour off.
  public var color: ColorMode = .auto

  public static let specs: [OptionSpec] = [
    OptionSpec(
      .server, value: "URL", env: "SUSI_SERVER",
      help: "SUSI server to use (default: the built-in server)"),
    OptionSpec(
      .log, value: "FILE", env: "SUSI_LOG",
      help: "event log to resume and append to (default: STATE-DIR/events.jsonl)"),
    OptionSpec(
      .websearchURL, value: "URL", env: "SUSI_WEBSEARCH_URL",
      help: "DuckDuckGo-format web search endpoint"),
    OptionSpec(
      .skills, value: "DIR", env: "SUSI_SKILLS",
      help: "skill folder of the built-in server, kept for later runs; 'bundled' goes back"),
    OptionSpec(
      .stateDir, value: "DIR", env: "SUSI_STATE_DIR",
      help: "credentials, image cache, built-in server data (default: $XDG_STATE_HOME/susi)"),
    OptionSpec(
      .fsync, value: "MODE", env: "SUSI_FSYNC",
      help: "log durability: always, batch or never (default: batch)"),
    OptionSpec(
      .caFile, value: "FILE",
      help: "trust the CA certificates in FILE (PEM) for https, besides the system store;"
        + " kept with the remembered server"),
    OptionSpec(
      .allowPrivateTargets, env: "SUSI_ALLOW_PRIVATE_TARGETS",
      help:
        "let previews, images, webhooks and skills' console rules reach loopback and private addresses (testing)"
    ),
    OptionSpec(.quiet, short: "-q", help: "print only the answer or the data, no notes"),
    OptionSpec(
      .verbose, help: "show each request, its status and time on stderr (secrets masked)"),
    OptionSpec(
      .color, value: "WHEN",
      help: "colour: auto (a terminal without NO_COLOR), always or never (default: auto)"),
    OptionSpec(.noColor, help: "the same as --color=never"),
    OptionSpec(.help, short: "-h", help: "show help"),
    OptionSpec(.version, help: "print the version"),
  ]

  public static let fsyncModes = ["always", "batch", "never"]

  public init(
    server: String? = nil, log: String, websearchURL: String? = nil, stateDirectory: String,
    fsync: String = "batch"
  ) {
    self.server = server
    self.serverSource = server != nil ? .commandLine : .builtIn
    self.log = log
    self.websearchURL = websearchURL
    self.stateDirectory = stateDirectory
    self.imageDirectory = stateDirectory + "/images"
    self.fsync = fsync
  }

  /// Resolves the options from the command line, then the environment, then the defaults.
  /// `readsConfig` false ignores the config file (for `susi config`, which must work even when
  /// the file is broken).
  public static func resolve(
    _ parsed: ParsedCommandLine, environment: [String: String], readsConfig: Bool = true
  ) throws(UsageError) -> CommonOptions {
    let config = readsConfig ? try ConfigFile.load(environment) : ConfigFile()
    func pick(_ name: OptionName, _ variable: String) -> String? {
      if let value = parsed.value(name) { return value }
      if let value = environment[variable], !value.isEmpty { return value }
      return nil
    }
    // Errors name where a bad value came from, so one set in the environment can be found.
    func origin(_ name: OptionName, _ variable: String) -> String {
      parsed.has(name) ? name.text : variable
    }
    var websearch: String?
    if let text = pick(.websearchURL, "SUSI_WEBSEARCH_URL") {
      guard Validation.webURL(text) else {
        throw UsageError(
          "'\(text)' is not an http(s) URL for \(origin(.websearchURL, "SUSI_WEBSEARCH_URL"))")
      }
      websearch = text
    }
    let stateDirectory = pick(.stateDir, "SUSI_STATE_DIR") ?? defaultStateDirectory(environment)
    let (server, serverSource) = try resolveServer(
      parsed, environment: environment, stateDirectory: stateDirectory, config: config)
    let log = pick(.log, "SUSI_LOG") ?? stateDirectory + "/events.jsonl"
    let fsync = pick(.fsync, "SUSI_FSYNC") ?? "batch"
    guard fsyncModes.contains(fsync) else {
      throw UsageError(
        "\(origin(.fsync, "SUSI_FSYNC")) takes always, batch or never, not '\(fsync)'",
        suggestion: Spelling.closest(to: fsync, in: fsyncModes))
    }
    var options = CommonOptions(
      server: server, log: log, websearchURL: websearch, stateDirectory: stateDirectory,
      fsync: fsync)
    options.skills = pick(.skills, "SUSI_SKILLS")
    options.serverSource = serverSource
    // --ca-file, else the config file's `ca-file` (else the one remembered with the server).
    options.caFile = config["ca-file"]
    if let caFile = parsed.value(.caFile) {
      guard !caFile.isEmpty else { throw UsageError("--ca-file takes a file of PEM certificates") }
      options.caFile = caFile
    }
    options.imageDirectory = imageDirectory(
      stateDirectory: stateDirectory,
      given: pick(.stateDir, "SUSI_STATE_DIR") != nil, environment: environment)
    options.quiet = parsed.has(.quiet)
    options.verbose = parsed.has(.verbose)
    if options.quiet && options.verbose {
      throw UsageError("--quiet and --verbose cannot be used together")
    }
    options.color = try colorMode(parsed, environment: environment, config: config)
    options.allowsPrivateTargets = parsed.has(.allowPrivateTargets)
    if !options.allowsPrivateTargets, let text = environment["SUSI_ALLOW_PRIVATE_TARGETS"] {
      switch text.lowercased() {
      case "1", "true", "yes": options.allowsPrivateTargets = true
      case "", "0", "false", "no": break
      default: throw UsageError("SUSI_ALLOW_PRIVATE_TARGETS takes 1 or 0, not '\(text)'")
      }
    }
    return options
  }

  /// The server for this run and where it came from: `--server`, then SUSI_SERVER, then the
  /// remembered choice (`susi server use`), then the config file, then the built-in server.
  static func resolveServer(
    _ parsed: ParsedCommandLine, environment: [String: String], stateDirectory: String,
    config: ConfigFile = ConfigFile()
  ) throws(UsageError) -> (String?, ServerSource) {
    var text: String?
    var source = ServerSource.builtIn
    if let value = parsed.value(.server) {
      (text, source) = (value, .commandLine)
    } else if let value = environment["SUSI_SERVER"], !value.isEmpty {
      (text, source) = (value, .environment)
    } else if let remembered = try RememberedServer.load(stateDirectory: stateDirectory)?.server {
      (text, source) = (remembered, .remembered)
    } else if let configured = config["server"] {
      (text, source) = (configured, .configFile)
    }
    guard let text else { return (nil, .builtIn) }
    guard let url = Validation.serverURL(text) else {
      throw UsageError(
        "'\(text)' is not a server URL for \(source.name); use http(s)://host[:port][/path] or "
          + "'embedded'")
    }
    return (url == State.embeddedServer ? nil : url, source)
  }

  /// `--color WHEN` (or `--no-color`), then NO_COLOR, then the config file's `color`, then auto.
  static func colorMode(
    _ parsed: ParsedCommandLine, environment: [String: String], config: ConfigFile
  ) throws(UsageError) -> ColorMode {
    if let text = parsed.value(.color) {
      guard let mode = ColorMode(rawValue: text) else {
        throw UsageError(
          "--color takes auto, always or never, not '\(text)'",
          suggestion: Spelling.closest(to: text, in: ColorMode.allCases.map(\.rawValue)))
      }
      if parsed.has(.noColor), mode != .never {
        throw UsageError("--no-color and --color=\(text) contradict each other")
      }
      return mode
    }
    if parsed.has(.noColor) { return .never }
    if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return .never }
    return config["color"].flatMap(ColorMode.init(rawValue:)) ?? .auto
  }

  /// Where images are cached (see `imageDirectory`).
  static func imageDirectory(stateDirectory: String, given: Bool, environment: [String: String])
    -> String
  {
    let old = stateDirectory + "/images"
    if given || FileManager.default.fileExists(atPath: old) { return old }
    return defaultCacheDirectory(environment) + "/images"
  }

  /// `$XDG_CACHE_HOME/susi`, or `~/.cache/susi`.
  public static func defaultCacheDirectory(_ environment: [String: String]) -> String {
    if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") { return xdg + "/susi" }
    let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "."
    return home + "/.cache/susi"
  }

  /// `$XDG_STATE_HOME/susi`, or `~/.local/state/susi` (a relative XDG value is ignored, as the
  /// spec says).
  public static func defaultStateDirectory(_ environment: [String: String]) -> String {
    if let xdg = environment["XDG_STATE_HOME"], xdg.hasPrefix("/") { return xdg + "/susi" }
    let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "."
    return home + "/.local/state/susi"
  }
}

/// Where the server of a run was chosen.
public enum ServerSource: String, Sendable, Equatable {
  /// `--server`, for this run only.
  case commandLine
  /// `SUSI_SERVER`, for this run only.
  case environment
  /// `susi server use URL` or `/server URL` in the chat: used until another choice.
  case remembered
  /// The config file's `server` default.
  case configFile
  /// Nothing chose one: the built-in server.
  case builtIn
  /// Another susi running on the same log uses it; this run joins it rather than switching.
  case sharedLog

  /// How error messages name the source.
  public var name: String {
    switch self {
    case .commandLine: OptionName.server.text
    case .environment: "SUSI_SERVER"
    case .remembered: "the remembered server"
    case .configFile: "the config file's server"
    case .builtIn: "the built-in server"
    case .sharedLog: "the server another susi on this log uses"
    }
  }

  /// Whether the choice holds for this run only.
  public var isForThisRun: Bool { self == .commandLine || self == .environment }
}
