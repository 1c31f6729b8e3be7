/// One option a command accepts.
public struct OptionSpec: Sendable {
  /// The long name.
  public var option: OptionName
  /// The long name with dashes: `--server`.
  public var name: String { option.text }
  /// A one-letter alias with its dash (`-p`), if any.
  public var short: String?
  /// What the value is called in help (`URL`); nil for a flag that takes no value.
  public var valueName: String?
  public var help: String
  /// The environment variable that supplies a default.
  public var environment: String?

  public init(
    _ option: OptionName, short: String? = nil, value valueName: String? = nil,
    env environment: String? = nil, help: String
  ) {
    self.option = option
    self.short = short
    self.valueName = valueName
    self.help = help
    self.environment = environment
  }

  public var takesValue: Bool { valueName != nil }

  /// Values a flag may carry after `=` (`--json=events`); given bare, its value is `""`.
  public var inlineValues: [String] = []

  /// This flag, accepting `values` after `=`.
  public func accepting(_ values: [String]) -> OptionSpec {
    var spec = self
    spec.inlineValues = values
    return spec
  }
}

/// One subcommand: its words, help text and options. Every command also accepts the common
/// options (`CommonOptions.specs`).
public struct CommandSpec: Sendable {
  public var name: String
  /// One line for the command list.
  public var summary: String
  /// The usage line after `susi `, e.g. `rate NAME STARS`.
  public var usage: String
  /// A paragraph or two for `susi help NAME`.
  public var discussion: String
  public var examples: [String]
  public var options: [OptionSpec]
  /// How many positional arguments it takes.
  public var arguments: ClosedRange<Int>
  /// Hidden commands work but are not listed.
  public var hidden: Bool
  /// Common options the command has no use for: given on its command line, they are refused
  /// rather than silently ignored.
  public var unusedCommonOptions: [OptionName] = []

  public init(
    name: String, summary: String, usage: String, discussion: String = "", examples: [String] = [],
    options: [OptionSpec] = [], arguments: ClosedRange<Int> = 0...0, hidden: Bool = false
  ) {
    self.name = name
    self.summary = summary
    self.usage = usage
    self.discussion = discussion
    self.examples = examples
    self.options = options
    self.arguments = arguments
    self.hidden = hidden
  }

  /// This command, refusing the common `options` (it has no use for them).
  public func refusing(_ options: [OptionName]) -> CommandSpec {
    var spec = self
    spec.unusedCommonOptions += options
    return spec
  }
}

/// Exit codes (BSD sysexits where one fits).
public enum ExitCode {
  public static let success: Int32 = 0
  /// A request failed or the server refused.
  public static let failure: Int32 = 1
  /// The command line was wrong.
  public static let usage: Int32 = 64
  /// Input data (a log, a file) is malformed.
  public static let dataError: Int32 = 65
  /// A needed file could not be opened.
  public static let noInput: Int32 = 66
  /// A needed service could not be reached.
  public static let unavailable: Int32 = 69
  /// susi itself failed.
  public static let software: Int32 = 70
  /// Something on disk is in the way (a locked log, a file with unsafe permissions).
  public static let cannotCreate: Int32 = 73
  public static let ioError: Int32 = 74
  public static let interrupted: Int32 = 130

  /// Every exit code susi uses and what it means, for `--help` and the manual page.
  public static let documented: [(code: Int32, meaning: String)] = [
    (success, "success"),
    (failure, "a request failed or the server refused (the message says why)"),
    (usage, "the command line was wrong: a usage or validation error"),
    (dataError, "input data (a log, a skill folder, a reply to replay) is malformed"),
    (noInput, "a needed file could not be opened (a password file, a skill folder)"),
    (unavailable, "a needed service could not be started or reached (the built-in server)"),
    (software, "an internal error (a bug: please report it)"),
    (cannotCreate, "something on disk is in the way (a locked log, unsafe permissions)"),
    (ioError, "reading or writing failed (the log, stdin, stdout)"),
    (interrupted, "interrupted (Ctrl-C)"),
  ]
}
