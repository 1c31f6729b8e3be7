import Foundation

/// Tab completion for bash, zsh and fish, written from the same command table as `--help`:
/// the command names, then each command's options and the options every command takes.
///
/// ```sh
/// source <(susi completion bash)
/// susi completion zsh > "${fpath[1]}/_susi"
/// susi completion fish > ~/.config/fish/completions/susi.fish
/// ```
public enum ShellCompletion {
  /// The shells a script is written for.
  public static let shells = ["bash", "zsh", "fish"]

  /// The completion script for `shell`, or nil for a shell not in `shells`.
  public static func script(for shell: String, commands: [CommandSpec], common: [OptionSpec])
    -> String?
  {
    let listed = commands.filter { !$0.hidden }
    switch shell {
    case "bash": return bash(listed, common: common)
    case "zsh": return zsh(listed, common: common)
    case "fish": return fish(listed, common: common)
    default: return nil
    }
  }

  private static func names(_ options: [OptionSpec]) -> [String] {
    options.flatMap { [$0.name] + ($0.short.map { [$0] } ?? []) }
  }

  private static func bash(_ commands: [CommandSpec], common: [OptionSpec]) -> String {
    var out = """
      # bash completion for susi (from 'susi completion bash')
      _susi() {
        local current=${COMP_WORDS[COMP_CWORD]} command="" word
        for word in "${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
          case $word in -*) ;; *) command=$word; break ;; esac
        done
        local options="\(names(common).joined(separator: " "))"
        case $command in

      """
    for command in commands {
      out +=
        "    \(command.name)) options=\"$options \(names(command.options).joined(separator: " "))\" ;;\n"
    }
    out += """
          "")
            if [[ $current != -* ]]; then
              COMPREPLY=($(compgen -W "\(commands.map(\.name).joined(separator: " "))" -- "$current"))
              return
            fi ;;
        esac
        if [[ $current == -* ]]; then
          COMPREPLY=($(compgen -W "$options" -- "$current"))
        else
          COMPREPLY=($(compgen -f -- "$current"))
        fi
      }
      complete -F _susi susi

      """
    return out
  }

  private static func zsh(_ commands: [CommandSpec], common: [OptionSpec]) -> String {
    func quoted(_ text: String) -> String {
      text.replacingOccurrences(of: "'", with: "'\\''").replacingOccurrences(of: ":", with: "\\:")
    }
    func specs(_ options: [OptionSpec]) -> String {
      options.map { option in
        let help = quoted(option.help).replacingOccurrences(of: "[", with: "\\[")
          .replacingOccurrences(of: "]", with: "\\]")
        let value = option.valueName.map { ":\(quoted($0)):_files" } ?? ""
        return "'\(option.name)[\(help)]\(value)'"
      }.joined(separator: " ")
    }
    var out = """
      #compdef susi
      # zsh completion for susi (from 'susi completion zsh')
      _susi() {
        local -a commands
        commands=(

      """
    for command in commands {
      out += "    '\(command.name):\(quoted(command.summary))'\n"
    }
    out += """
        )
        local common=(\(specs(common)))
        if (( CURRENT == 2 )) && [[ $words[CURRENT] != -* ]]; then
          _describe 'command' commands
          return
        fi
        case $words[2] in

      """
    for command in commands {
      out +=
        "    \(command.name)) _arguments $common \(specs(command.options)) '*:file:_files' ;;\n"
    }
    out += """
          *) _arguments $common '*:file:_files' ;;
        esac
      }
      compdef _susi susi

      """
    return out
  }

  private static func fish(_ commands: [CommandSpec], common: [OptionSpec]) -> String {
    func quoted(_ text: String) -> String {
      "'"
        + text.replacingOccurrences(of: "\\", with: "\\\\")
        .replacingOccurrences(of: "'", with: "\\'") + "'"
    }
    func line(_ option: OptionSpec, condition: String) -> String {
      var out = "complete -c susi -n \(quoted(condition)) -l \(option.name.dropFirst(2))"
      if let short = option.short { out += " -s \(short.dropFirst())" }
      if option.takesValue { out += " -r" }
      return out + " -d \(quoted(option.help))\n"
    }
    let names = commands.map(\.name).joined(separator: " ")
    var out = "# fish completion for susi (from 'susi completion fish')\n"
    out += "complete -c susi -f\n"
    for command in commands {
      out +=
        "complete -c susi -n \(quoted("not __fish_seen_subcommand_from \(names)")) -a \(command.name) -d \(quoted(command.summary))\n"
    }
    for option in common { out += line(option, condition: "true") }
    for command in commands {
      for option in command.options {
        out += line(option, condition: "__fish_seen_subcommand_from \(command.name)")
      }
    }
    return out
  }
}
