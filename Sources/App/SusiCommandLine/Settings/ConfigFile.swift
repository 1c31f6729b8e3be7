import SusiCore
public import SusiFiles

/// The config file, `$XDG_CONFIG_HOME/susi/config` (default `~/.config/susi/config`): defaults
/// for the common options as `key = value` lines. The command line and the environment win over
/// it; it wins over the built-in defaults.
public struct ConfigFile: Sendable, Equatable {
  public var values: KeyValueFile

  public init(values: KeyValueFile = KeyValueFile()) { self.values = values }

  /// A key the file may hold, what it is for and how its value is checked.
  public struct Key: Sendable {
    public var name: String
    public var help: String
    /// Why `value` is refused, or nil when it is fine.
    public var problem: @Sendable (String) -> String?
  }

  public static let keys: [Key] = [
    Key(name: "server", help: "the server when none is given or remembered (URL or embedded)") {
      Validation.serverURL($0) == nil
        ? "'\($0)' is not a server URL; use http(s)://host[:port][/path] or 'embedded'" : nil
    },
    Key(name: "ca-file", help: "a PEM file of CA certificates to trust for https") {
      $0.isEmpty ? "ca-file takes a file name" : nil
    },
    Key(name: "color", help: "auto, always or never (like --color)") {
      ColorMode(rawValue: $0) == nil ? "color takes auto, always or never, not '\($0)'" : nil
    },
  ]

  /// The key named `name`, or a usage error suggesting the closest one.
  public static func key(_ name: String) throws(UsageError) -> Key {
    guard let key = keys.first(where: { $0.name == name }) else {
      throw UsageError(
        "no config key '\(name)'; the keys are " + keys.map(\.name).joined(separator: ", "),
        suggestion: Spelling.closest(to: name, in: keys.map(\.name)))
    }
    return key
  }

  /// Where the file is: `$XDG_CONFIG_HOME/susi/config` (a relative value is ignored, as the XDG
  /// spec says), else `~/.config/susi/config`.
  public static func path(_ environment: [String: String]) -> String {
    if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") { return xdg + "/susi/config" }
    let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "."
    return home + "/.config/susi/config"
  }

  /// The file under `environment` (empty when there is none). A malformed line, an unknown key
  /// or a bad value is a usage error naming the file.
  public static func load(_ environment: [String: String]) throws(UsageError) -> ConfigFile {
    let path = path(environment)
    let file: KeyValueFile?
    do {
      file = try KeyValueFile.load(path)
    } catch {
      throw UsageError("\(error)")
    }
    guard let file else { return ConfigFile() }
    for entry in file.entries {
      guard let key = keys.first(where: { $0.name == entry.key }) else {
        throw UsageError(
          "\(path): no config key '\(entry.key)'",
          suggestion: Spelling.closest(to: entry.key, in: keys.map(\.name)))
      }
      if let problem = key.problem(entry.value) { throw UsageError("\(path): \(problem)") }
    }
    return ConfigFile(values: file)
  }

  public subscript(key: String) -> String? { values[key] }

  public func save(_ environment: [String: String]) throws(PrivateFile.Failure) {
    try values.save(
      Self.path(environment),
      header: ["susi's defaults: 'susi config list' shows them, 'susi help config' explains them."]
    )
  }
}

/// When output is coloured: `auto` = on a terminal without NO_COLOR or TERM=dumb.
public enum ColorMode: String, Sendable, Equatable, CaseIterable {
  case auto, always, never
}
