import Foundation

/// `susi(1)`, in roff, written from the same command table as `--help`.
public enum ManPage {
  /// The page: name, synopsis, description, every listed command with its usage, options and
  /// examples, the common options with their environment variables, exit codes, files.
  public static func render(commands: [CommandSpec], common: [OptionSpec], version: String)
    -> String
  {
    var out = """
      .TH SUSI 1 "" "susi \(escape(version))" "User Commands"
      .SH NAME
      susi \\- a SUSI.AI client for the terminal, for programs and for services
      .SH SYNOPSIS
      .B susi
      [\\fICOMMAND\\fR] [\\fIOPTIONS\\fR] [\\fIARGUMENTS\\fR]
      .SH DESCRIPTION
      With no command, susi starts an interactive chat. Plain text is a question for SUSI;
      lines starting with / are commands (/help lists them). With no \\fB\\-\\-server\\fR,
      susi starts its built-in SUSI server on a loopback port, so it works offline.
      Everything susi does is recorded in an event log, which \\fBsusi replay\\fR reads back.
      .SH COMMANDS

      """
    for command in commands where !command.hidden {
      out += ".TP\n.B susi \(escape(command.usage))\n\(escape(command.summary))\n"
      if !command.discussion.isEmpty {
        out += ".RS\n.PP\n\(escape(command.discussion))\n"
        out += options(command.options)
        if !command.examples.isEmpty {
          out += ".PP\nExamples:\n.nf\n"
          for example in command.examples { out += escape(example) + "\n" }
          out += ".fi\n"
        }
        out += ".RE\n"
      } else if !command.options.isEmpty || !command.examples.isEmpty {
        out += ".RS\n" + options(command.options)
        if !command.examples.isEmpty {
          out += ".PP\nExamples:\n.nf\n"
          for example in command.examples { out += escape(example) + "\n" }
          out += ".fi\n"
        }
        out += ".RE\n"
      }
    }
    out += ".SH OPTIONS\nThese options apply to every command.\n" + options(common)
    out += """
      .SH EXIT STATUS

      """
    for (code, meaning) in ExitCode.documented { out += ".TP\n.B \(code)\n\(escape(meaning))\n" }
    out += """
      .SH FILES
      .TP
      .I $XDG_STATE_HOME/susi/events.jsonl
      the event log (\\fI~/.local/state/susi/events.jsonl\\fR by default)
      .TP
      .I $XDG_STATE_HOME/susi/
      credentials, the remembered server and the built-in server's data
      .TP
      .I $XDG_CONFIG_HOME/susi/config
      defaults: server, ca-file, color (\\fI~/.config/susi/config\\fR by default)
      .TP
      .I $XDG_CACHE_HOME/susi/images/
      the image cache (\\fI~/.cache/susi/images\\fR by default)
      .SH SEE ALSO
      https://github.com/fossasia/susi_server

      """
    return out
  }

  private static func options(_ options: [OptionSpec]) -> String {
    var out = ""
    for option in options {
      var head = "\\fB" + escape(option.name) + "\\fR"
      if let short = option.short { head = "\\fB" + escape(short) + "\\fR, " + head }
      if let value = option.valueName { head += " \\fI" + escape(value) + "\\fR" }
      out += ".TP\n\(head)\n\(escape(option.help))"
      if let variable = option.environment { out += " (environment: \\fB\(variable)\\fR)" }
      out += "\n"
    }
    return out
  }

  /// Text made safe for roff: backslashes and hyphens escaped, no line starting with a dot or
  /// a quote (which roff would read as a request).
  static func escape(_ text: String) -> String {
    text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
      .split(separator: "\n", omittingEmptySubsequences: false)
      .map { line in line.hasPrefix(".") || line.hasPrefix("'") ? "\\&" + line : String(line) }
      .joined(separator: "\n")
  }
}
