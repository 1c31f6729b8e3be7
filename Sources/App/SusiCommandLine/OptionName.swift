/// The name of a command-line option, with its dashes (`--port`). Every option susi takes is
/// one of the constants below, so code names an option by a constant and a misspelt name does
/// not compile.
public struct OptionName: Hashable, Sendable, CustomStringConvertible {
  /// The name as typed: `--port`.
  public let text: String

  private init(_ text: String) { self.text = text }

  public var description: String { text }

  public static let after = OptionName("--after")
  public static let allowAdmin = OptionName("--allow-admin")
  public static let allowPrivateTargets = OptionName("--allow-private-targets")
  public static let caFile = OptionName("--ca-file")
  public static let checkSkills = OptionName("--check-skills")
  public static let color = OptionName("--color")
  public static let data = OptionName("--data")
  public static let digest = OptionName("--digest")
  public static let drainTimeout = OptionName("--drain-timeout")
  public static let events = OptionName("--events")
  public static let examples = OptionName("--examples")
  public static let from = OptionName("--from")
  public static let fromSnapshot = OptionName("--from-snapshot")
  public static let fsync = OptionName("--fsync")
  public static let groups = OptionName("--groups")
  public static let help = OptionName("--help")
  public static let host = OptionName("--host")
  public static let id = OptionName("--id")
  public static let json = OptionName("--json")
  public static let keys = OptionName("--keys")
  public static let label = OptionName("--label")
  public static let log = OptionName("--log")
  public static let logFormat = OptionName("--log-format")
  public static let logLevel = OptionName("--log-level")
  public static let noColor = OptionName("--no-color")
  public static let noSnapshot = OptionName("--no-snapshot")
  public static let noWait = OptionName("--no-wait")
  public static let open = OptionName("--open")
  public static let passwordFile = OptionName("--password-file")
  public static let port = OptionName("--port")
  public static let prefix = OptionName("--prefix")
  public static let quiet = OptionName("--quiet")
  public static let replayFirst = OptionName("--replay-first")
  public static let secret = OptionName("--secret")
  public static let seed = OptionName("--seed")
  public static let server = OptionName("--server")
  public static let skills = OptionName("--skills")
  public static let stateDir = OptionName("--state-dir")
  public static let stats = OptionName("--stats")
  public static let step = OptionName("--step")
  public static let subscribers = OptionName("--subscribers")
  public static let tlsCertificate = OptionName("--tls-cert")
  public static let tlsKey = OptionName("--tls-key")
  public static let trustedProxy = OptionName("--trusted-proxy")
  public static let until = OptionName("--until")
  public static let utc = OptionName("--utc")
  public static let verbose = OptionName("--verbose")
  public static let verify = OptionName("--verify")
  public static let version = OptionName("--version")
  public static let wait = OptionName("--wait")
  public static let web = OptionName("--web")
  public static let websearchURL = OptionName("--websearch-url")
}

extension Dictionary where Key == String, Value == String {
  /// The value given for `option` in options keyed by their names.
  public subscript(_ option: OptionName) -> String? { self[option.text] }
}
