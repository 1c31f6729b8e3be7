/// Renders help for the command table.
public enum HelpText {
  /// `susi --help`: what susi is, the commands, the common options, where to read more.
  public static func overview(commands: [CommandSpec], common: [OptionSpec], version: String)
    -> String
  {
    var out = """
      susi \(version) — a SUSI.AI client for the terminal, for programs and for services.

      Usage: susi [COMMAND] [OPTIONS] [ARGUMENTS]

      With no command, susi starts an interactive chat. Plain text is a question for SUSI;
      lines starting with / are commands (/help lists them).

      Examples:
        susi                                  chat (uses the built-in server when no --server)
        susi ask what is the capital of france
        susi skills Knowledge
        susi rate "Flip a coin" 5
        susi --server https://susi.example.org ask hello

      Commands:

      """
    let listed = commands.filter { !$0.hidden }
    let width = listed.map(\.name.count).max() ?? 0
    for command in listed {
      out += "  \(command.name.padded(to: width))  \(command.summary)\n"
    }
    out += "\nOptions for every command:\n"
    out += optionLines(common)
    out += "\nExit codes:\n"
    for (code, meaning) in ExitCode.documented {
      out += "  \(String(code).padded(to: 3))  \(meaning)\n"
    }
    out += "\nRun 'susi help COMMAND' for more about a command, 'susi version' for the version.\n"
    out += "Put '--' before text that starts with '-': susi ask -- -5 + 2\n"
    return out
  }

  /// `susi help NAME` / `susi NAME --help`.
  public static func command(_ command: CommandSpec, common: [OptionSpec]) -> String {
    var out = "Usage: susi \(command.usage)\n\n\(command.summary)\n"
    if !command.discussion.isEmpty { out += "\n\(command.discussion)\n" }
    if !command.examples.isEmpty {
      out += "\nExamples:\n"
      for example in command.examples { out += "  \(example)\n" }
    }
    if !command.options.isEmpty {
      out += "\nOptions:\n"
      out += optionLines(command.options)
    }
    out += "\nCommon options:\n"
    out += optionLines(common.filter { !command.unusedCommonOptions.contains($0.option) })
    return out
  }

  /// The one-line reminder printed after a usage error.
  public static func usageLine(_ command: CommandSpec?) -> String {
    if let command {
      "Usage: susi \(command.usage)\nSee 'susi help \(command.name)'."
    } else {
      "Usage: susi [COMMAND] [OPTIONS] [ARGUMENTS]\nSee 'susi --help'."
    }
  }

  static func optionLines(_ options: [OptionSpec]) -> String {
    let left = options.map { option -> String in
      var text = option.short.map { "\($0), " } ?? ""
      text += option.name
      if let value = option.valueName { text += " \(value)" }
      return text
    }
    let width = left.map(\.count).max() ?? 0
    var out = ""
    for (text, option) in zip(left, options) {
      var help = option.help
      if let environment = option.environment { help += " (env \(environment))" }
      out += "  \(text.padded(to: width))  \(help)\n"
    }
    return out
  }
}

extension String {
  func padded(to width: Int) -> String {
    count >= width ? self : self + String(repeating: " ", count: width - count)
  }
}
