import Foundation
import SusiCommandLine
import SusiTesting
import Testing

/// Shell completion, the manual page, and install/uninstall, through the built `susi`.
@Suite struct ToolCommandsTests {
  let susi: SusiBinary
  let folder = FileManagerTestFolder()

  init() throws { susi = try SusiBinary.built() }

  func run(_ arguments: [String]) async throws -> SusiProcess.Output {
    try await susi.run(arguments, environment: SusiBinary.isolatedEnvironment(folder.path))
  }

  /// The commands `susi --help` lists.
  func listedCommands() async throws -> [String] {
    let help = try await run(["--help"]).stdout
    let section = help.components(separatedBy: "Commands:\n").last ?? ""
    return section.split(separator: "\n", omittingEmptySubsequences: false).prefix { !$0.isEmpty }
      .compactMap {
        $0.split(separator: " ").first.map(String.init)
      }
  }

  @Test func completionScriptsParseAndOfferEveryListedCommand() async throws {
    defer { try? FileManager.default.removeItem(atPath: folder.path) }
    let commands = try await listedCommands()
    #expect(commands.contains("completion") && commands.contains("install"))
    let bash = try await run(["completion", "bash"])
    #expect(bash.status == 0)
    let script = folder.path + "/susi.bash"
    try bash.stdout.write(toFile: script, atomically: true, encoding: .utf8)
    // bash completes the words it is given as `COMP_WORDS`: every command from "", and the
    // options of `rate` after it.
    // Started by the tests' own spawner: Foundation's `Process.run` crashed the test run (a
    // bad read in its bookkeeping while other tests started programs and opened descriptors).
    let probe = try await SusiBinary(path: "/bin/bash").run([
      "-c",
      "source \(script); COMP_WORDS=(susi ''); COMP_CWORD=1; _susi; echo \"${COMPREPLY[*]}\"; "
        + "COMP_WORDS=(susi rate --); COMP_CWORD=2; _susi; echo \"${COMPREPLY[*]}\"",
    ])
    let lines = probe.stdout.split(separator: "\n")
    #expect(probe.status == 0)
    #expect(Set(lines.first?.split(separator: " ").map(String.init) ?? []) == Set(commands))
    #expect(lines.last?.contains("--server") == true && lines.last?.contains("--json") == true)
    for shell in ["zsh", "fish"] {
      let other = try await run(["completion", shell])
      #expect(other.status == 0)
      for command in commands { #expect(other.stdout.contains(command), "\(shell): \(command)") }
    }
    let unknown = try await run(["completion", "tcsh"])
    #expect(unknown.status == 64)
    #expect(unknown.stderr.contains("bash, zsh, fish"))
  }

  @Test func theManualPageListsEveryCommandAndCommonOption() async throws {
    defer { try? FileManager.default.removeItem(atPath: folder.path) }
    let page = try await run(["man"])
    #expect(page.status == 0)
    #expect(page.stdout.hasPrefix(".TH SUSI 1"))
    for command in try await listedCommands() {
      #expect(page.stdout.contains(".B susi \(command)"), "\(command)")
    }
    for option in CommonOptions.specs {
      let name = option.name.replacingOccurrences(of: "-", with: "\\-")
      #expect(page.stdout.contains(name), "\(option.name)")
    }
    #expect(try await run(["man", "--server", "http://x"]).status == 64)
  }

  @Test func installPutsEverythingUnderThePrefixAndUninstallTakesItAway() async throws {
    defer { try? FileManager.default.removeItem(atPath: folder.path) }
    let prefix = folder.path + "/prefix"
    let installed = try await run(["install", "--prefix", prefix])
    #expect(installed.status == 0, "\(installed.stderr)")
    for path in [
      "bin/susi", "share/susi/web/index.html", "share/man/man1/susi.1",
      "share/bash-completion/completions/susi", "share/zsh/site-functions/_susi",
      "share/fish/vendor_completions.d/susi.fish",
    ] {
      #expect(FileManager.default.fileExists(atPath: prefix + "/" + path), "\(path)")
    }
    // The installed copy finds its skills under the prefix and answers.
    let copy = SusiBinary(path: prefix + "/bin/susi")
    let answer = try await copy.run(
      ["ask", "flip a coin", "--state-dir", folder.path + "/state"],
      environment: SusiBinary.isolatedEnvironment(folder.path))
    #expect(answer.status == 0, "\(answer.stderr)")
    #expect(["heads\n", "tails\n"].contains(answer.stdout))

    // Something of the user's under the prefix stays.
    try "mine".write(toFile: prefix + "/share/susi/notes", atomically: true, encoding: .utf8)
    let removed = try await run(["uninstall", "--prefix", prefix])
    #expect(removed.status == 0, "\(removed.stderr)")
    #expect(!FileManager.default.fileExists(atPath: prefix + "/bin/susi"))
    #expect(!FileManager.default.fileExists(atPath: prefix + "/share/man"))
    #expect(FileManager.default.fileExists(atPath: prefix + "/share/susi/notes"))
    #expect(try await run(["uninstall", "--prefix", prefix]).status == 66)
    #expect(try await run(["install", "--prefix", "relative"]).status == 64)
  }
}
