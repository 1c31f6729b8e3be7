import SusiCore
import SusiJSON

/// A subcommand: its description and what it does.
public struct Command: Sendable {
  public var spec: CommandSpec
  /// Runs the command; returns the process exit code.
  public var run: @Sendable (Invocation) async -> Int32

  public init(_ spec: CommandSpec, run: @escaping @Sendable (Invocation) async -> Int32) {
    self.spec = spec
    self.run = run
  }
}

/// Everything a command gets: its parsed words, the common options and the environment.
public struct Invocation: Sendable {
  public var parsed: ParsedCommandLine
  public var common: CommonOptions
  public var environment: [String: String]
  public var arguments: [String] { parsed.arguments }

  public init(parsed: ParsedCommandLine, common: CommonOptions, environment: [String: String]) {
    self.parsed = parsed
    self.common = common
    self.environment = environment
  }
}

/// Dispatches `susi …` to a command: help, version, typos and usage errors are handled here, the
/// same way for every command.
public struct CommandLineApp: Sendable {
  public var commands: [Command]
  /// Used when no command word is given.
  public var defaultCommand: String
  public var version: String

  public init(commands: [Command], defaultCommand: String, version: String) {
    self.commands = commands
    self.defaultCommand = defaultCommand
    self.version = version
  }

  /// Runs the command line `words` (without the program name); returns the exit code.
  public func run(_ words: [String], environment: [String: String]) async -> Int32 {
    let common = CommonOptions.specs
    // The command is the first word that is neither an option nor an option's value. An option
    // no command knows stops the search here, so that its value is not taken for the command.
    let allOptions = common + commands.flatMap(\.spec.options)
    var commandIndex: Int?
    var i = 0
    while i < words.count {
      let word = words[i]
      if word == "--" { break }
      if word.hasPrefix("-") && word != "-" {
        let name = word.hasPrefix("--") ? String(word.prefix { $0 != "=" }) : String(word.prefix(2))
        guard let spec = allOptions.first(where: { $0.name == name || $0.short == name }) else {
          return usageError(
            UsageError(
              "unknown option '\(name)'",
              suggestion: ParsedCommandLine.suggestOption(for: name, specs: common)
                ?? ParsedCommandLine.suggestOption(for: name, specs: allOptions)),
            nil)
        }
        if spec.takesValue && name == word { i += 1 }
        i += 1
        continue
      }
      commandIndex = i
      break
    }
    if commandIndex == nil {
      if words.contains(OptionName.help.text) || words.contains("-h") {
        StandardStream.output.write(
          HelpText.overview(commands: commands.map(\.spec), common: common, version: version))
        return ExitCode.success
      }
      if words.contains(OptionName.version.text) {
        StandardStream.output.line("susi \(version)")
        return ExitCode.success
      }
    }
    var rest = words
    var name = defaultCommand
    if let commandIndex {
      name = words[commandIndex]
      rest.remove(at: commandIndex)
    }
    if name == "version" {
      let versionSpec = CommandSpec(
        name: "version", summary: "", usage: "version [--json]",
        options: [OptionSpec(.json, help: "print {\"version\": …}")])
      let parsed: ParsedCommandLine
      do {
        parsed = try ParsedCommandLine.parse(rest, for: versionSpec, common: common)
      } catch {
        return usageError(error, versionSpec)
      }
      StandardStream.output.line(
        parsed.has(.json)
          ? JSON.object(["version": .string(version)]).compactText : "susi \(version)")
      return ExitCode.success
    }
    if name == "help" {
      let helpSpec = CommandSpec(
        name: "help", summary: "", usage: "help [COMMAND]", arguments: 0...1)
      let topic: String?
      do {
        topic = try ParsedCommandLine.parse(rest, for: helpSpec, common: common).arguments.first
      } catch {
        return usageError(error, helpSpec)
      }
      guard let topic else {
        StandardStream.output.write(
          HelpText.overview(commands: commands.map(\.spec), common: common, version: version))
        return ExitCode.success
      }
      guard let command = commands.first(where: { $0.spec.name == topic }) else {
        return usageError(
          UsageError("no command '\(topic)'", suggestion: closestCommand(topic)), nil)
      }
      StandardStream.output.write(HelpText.command(command.spec, common: common))
      return ExitCode.success
    }
    guard let command = commands.first(where: { $0.spec.name == name }) else {
      return usageError(
        UsageError("unknown command '\(name)'", suggestion: closestCommand(name)), nil)
    }
    let parsed: ParsedCommandLine
    do {
      parsed = try ParsedCommandLine.parse(rest, for: command.spec, common: common)
    } catch {
      return usageError(error, command.spec)
    }
    if parsed.has(.help) {
      let text =
        commandIndex == nil
        ? HelpText.overview(commands: commands.map(\.spec), common: common, version: version)
        : HelpText.command(command.spec, common: common)
      StandardStream.output.write(text)
      return ExitCode.success
    }
    if parsed.has(.version) {
      StandardStream.output.line("susi \(version)")
      return ExitCode.success
    }
    if let unused = command.spec.unusedCommonOptions.first(where: parsed.has) {
      return usageError(
        UsageError("option '\(unused)' does not apply to 'susi \(command.spec.name)'"),
        command.spec)
    }
    let options: CommonOptions
    do {
      options = try CommonOptions.resolve(
        parsed, environment: environment, readsConfig: command.spec.name != "config")
    } catch {
      return usageError(error, command.spec)
    }
    return await command.run(Invocation(parsed: parsed, common: options, environment: environment))
  }

  private func closestCommand(_ word: String) -> String? {
    Spelling.closest(
      to: word, in: commands.filter { !$0.spec.hidden }.map(\.spec.name) + ["help", "version"])
  }

  /// Prints a usage error the same way for every command; exit 64.
  public func usageError(_ error: UsageError, _ command: CommandSpec?) -> Int32 {
    error.report(command)
  }
}
