import SusiCore
import SusiJSON

/// `susi config get|set|list|unset`: reads and changes the config file.
public enum ConfigCommand {
  public static let spec: CommandSpec = {
    let keys = ConfigFile.keys.map { "  \($0.name): \($0.help)" }.joined(separator: "\n")
    return CommandSpec(
      name: "config", summary: "show or change the defaults in the config file",
      usage: "config list | get KEY | set KEY VALUE | unset KEY",
      discussion: """
        The config file ($XDG_CONFIG_HOME/susi/config, default ~/.config/susi/config) holds
        defaults as 'key = value' lines ('#' starts a comment). The command line wins over the
        environment, which wins over the file. Keys:
        \(keys)
        """,
      examples: [
        "susi config set color never", "susi config get server", "susi config unset server",
      ],
      options: [OptionSpec(.json, help: "print the value, or all values, as JSON")],
      arguments: 1...3
    ).refusing(
      CommonOptions.specs.map(\.option).filter {
        ![.help, .version, .json, .quiet, .verbose, .color, .noColor]
          .contains($0)
      })
  }()

  public static let command = Command(spec) { invocation in run(invocation) }

  static func run(_ invocation: Invocation) -> Int32 {
    let arguments = invocation.arguments
    let environment = invocation.environment
    let counts = ["list": 1, "get": 2, "set": 3, "unset": 2]
    guard let count = counts[arguments[0]] else {
      return usage(
        UsageError(
          "'susi config' takes list, get, set or unset, not '\(arguments[0])'",
          suggestion: Spelling.closest(to: arguments[0], in: counts.keys.sorted())))
    }
    guard arguments.count == count else {
      return usage(
        UsageError("usage: susi config \(arguments[0])" + ["", " KEY", " KEY VALUE"][count - 1]))
    }
    var file: ConfigFile
    do {
      if arguments.count > 1 { _ = try ConfigFile.key(arguments[1]) }
      file = try ConfigFile.load(environment)
    } catch {
      return usage(error)
    }
    switch arguments[0] {
    case "list":
      if invocation.parsed.has(.json) {
        let object = JSONObject(file.values.entries.map { ($0.key, JSON.string($0.value)) })
        StandardStream.output.line(JSON.object(object).compactText)
      } else {
        for entry in file.values.entries {
          StandardStream.output.line("\(entry.key) = \(entry.value)")
        }
      }
      return ExitCode.success
    case "get":
      guard let value = file[arguments[1]] else { return ExitCode.failure }
      StandardStream.output.line(
        invocation.parsed.has(.json) ? JSON.string(value).compactText : value)
      return ExitCode.success
    case "set":
      let key = try? ConfigFile.key(arguments[1])
      if let problem = key?.problem(arguments[2]) { return usage(UsageError(problem)) }
      file.values[arguments[1]] = arguments[2]
    default:
      file.values[arguments[1]] = nil
    }
    do {
      try file.save(environment)
    } catch {
      StandardStream.error.line("susi: cannot write the config file: \(error)")
      return ExitCode.cannotCreate
    }
    return ExitCode.success
  }

  private static func usage(_ error: UsageError) -> Int32 { error.report(spec) }
}
