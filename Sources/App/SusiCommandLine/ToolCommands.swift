/// `susi completion SHELL` and `susi man`: shell completion and the manual page, both written
/// from the command table itself, so they list exactly what `--help` does.
public enum ToolCommands {
  /// `commands` with the two tool commands added; theirs are written from the whole list.
  /// `more` makes commands that need the completion scripts (by shell) and the manual page
  /// (`susi install`); they are listed too.
  public static func adding(
    to commands: [Command], version: String,
    more: (
      (
        _ completions: @escaping @Sendable () -> [String: String],
        _ manPage: @escaping @Sendable () -> String
      ) -> [Command]
    )? = nil
  ) -> [Command] {
    let completionSpec = CommandSpec(
      name: "completion", summary: "print a shell completion script (bash, zsh or fish)",
      usage: "completion bash|zsh|fish",
      discussion: "Load it in your shell's start-up file, or save it where the shell looks.",
      examples: [
        "source <(susi completion bash)      # in ~/.bashrc",
        "susi completion zsh > \"${fpath[1]}/_susi\"",
        "susi completion fish > ~/.config/fish/completions/susi.fish",
      ],
      arguments: 1...1)
    let manSpec = CommandSpec(
      name: "man", summary: "print the manual page (roff)", usage: "man",
      examples: ["susi man | man -l -", "susi man > ~/.local/share/man/man1/susi.1"])
    // The specs of the commands `more` makes, to list them; their actions are made below.
    let extra = more?({ [:] }, { "" }).map(\.spec) ?? []
    let specs = commands.map(\.spec) + extra + [completionSpec, manSpec]
    // Neither opens a log or reaches a server: every common option but help is refused.
    let unused = CommonOptions.specs.map(\.option).filter { $0 != .help && $0 != .version }
    let completion = Command(completionSpec.refusing(unused)) { invocation in
      let shell = invocation.arguments[0]
      guard
        let script = ShellCompletion.script(
          for: shell, commands: specs, common: CommonOptions.specs)
      else {
        StandardStream.error.line(
          "susi: no completion for '\(shell)': use one of "
            + ShellCompletion.shells.joined(separator: ", "))
        return ExitCode.usage
      }
      StandardStream.output.write(script)
      return ExitCode.success
    }
    let man = Command(manSpec.refusing(unused)) { _ in
      StandardStream.output.write(
        ManPage.render(commands: specs, common: CommonOptions.specs, version: version))
      return ExitCode.success
    }
    // Written only when a command asks, not at every start.
    let completions: @Sendable () -> [String: String] = {
      var scripts: [String: String] = [:]
      for shell in ShellCompletion.shells {
        scripts[shell] = ShellCompletion.script(
          for: shell, commands: specs, common: CommonOptions.specs)
      }
      return scripts
    }
    let page: @Sendable () -> String = {
      ManPage.render(commands: specs, common: CommonOptions.specs, version: version)
    }
    return commands + (more?(completions, page) ?? []) + [completion, man]
  }
}
