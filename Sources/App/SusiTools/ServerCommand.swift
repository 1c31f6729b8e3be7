import Foundation
public import SusiCommandLine
import SusiCore
import SusiHTTPServer
import SusiOperatorLog
import SusiServer
import SusiTLS

/// `susi server`: the built-in SUSI-compatible server in the foreground.
public enum ServerCommand {
  static let spec: CommandSpec = {
    var spec = CommandSpec(
      name: "server", summary: "run the built-in SUSI-compatible server",
      usage:
        "server [--port N] [--host ADDR] [--data DIR] [--seed N] [--trusted-proxy ADDR]"
        + " | server --check-skills DIR [--examples] | server use [URL|embedded]",
      discussion: """
        Serves the SUSI API (the same server susi starts inside itself when no --server is given)
        from skill files in the SUSI skill format, with accounts, ratings, settings and chat memory
        kept under STATE-DIR/server — so 'susi --state-dir X' and 'susi server --state-dir X' share
        them (every change is made under a lock).
        Prints its base URL on stdout once listening, then serves until Ctrl-C or SIGTERM. It binds
        127.0.0.1 unless --host says otherwise; --port 0 (the default) picks any free port.
        It also answers DuckDuckGo-format web searches at /duckduckgo/ and serves example pages
        for link previews at /pages/.
        --check-skills DIR does not serve: it loads DIR as the server would, prints every problem
        met (file and line: intents dropped and why), then asks every English !example: of the
        skills and says how many their own skill answered; --examples lists each example with the
        skill that answered it.

        'susi server use URL' makes URL the server every later run uses ('embedded' goes back to
        the built-in server; without URL it prints the choice). It is kept in
        STATE-DIR/remembered-server; --server and SUSI_SERVER apply to one run and never change it.
        """,
      examples: [
        "susi server --port 4000",
        "susi server --check-skills ~/susi_skill_data",
        "susi --server http://127.0.0.1:4000 ask hello    (from another terminal)",
        "susi server use https://api.susi.ai    (every later run)",
        "susi server use embedded",
      ],
      options: [
        .port(default: 0),
        OptionSpec(
          .host, value: "ADDR", help: "address to bind, or localhost (default 127.0.0.1)"),
        OptionSpec(
          .data, value: "DIR",
          help:
            "skill data folder holding models/…; refused without skills (default: the --skills folder)"
        ),
        OptionSpec(.seed, value: "N", help: "seed for answer choices, for reproducible answers"),
        OptionSpec(
          .trustedProxy, value: "ADDR",
          help: "reverse proxies (comma-separated) whose X-Real-IP/X-Forwarded-For name the client"),
        OptionSpec(
          .checkSkills, value: "DIR",
          help: "check the skills of DIR for authors: load warnings and example answers, then exit"
        ),
        OptionSpec(.examples, help: "with --check-skills: list every example and who answered"),
      ] + ServingTLSFiles.specs + OperatorLogOptions.specs,
      arguments: 0...2)
    // It serves from STATE-DIR/server alone: no log, no other server; its only outbound
    // requests are skills' console rules, which --allow-private-targets lets reach loopback and
    // private addresses.
    spec.unusedCommonOptions = [
      .server, .log, .websearchURL, .fsync, .caFile, .quiet, .verbose,
      .color, .noColor,
    ]
    return spec
  }()

  public static let command = Command(spec) { invocation in
    if let folder = invocation.parsed.value(.checkSkills) {
      return checkSkills(folder, listExamples: invocation.parsed.has(.examples))
    }
    if !invocation.arguments.isEmpty { return use(invocation) }
    guard let log = OperatorLogOptions.log(invocation, component: "server") else {
      return ExitCode.usage
    }
    var configuration: ServerConfiguration
    do throws(UsageError) {
      configuration = try configure(invocation)
    } catch {
      return error.report(spec)
    }
    if let data = configuration.dataDirectory, let problem = skillFolderProblem(data.path) {
      StandardStream.error.line("susi server: \(problem.message)")
      return problem.exitCode
    }
    if let warning = ServingTLSFiles.exposureWarning(
      host: configuration.host, tls: configuration.tls != nil)
    {
      log.warning(warning)
    }
    configuration.frontHandler = { RequestLogging($0, log: log) }
    let reloads = configuration.tls.map { $0.reloadOnHangup(log: log) }
    defer { reloads?.cancel() }
    let signals = ShutdownSignal()
    return await ServerForeground.run(
      configuration, output: { _ = StandardStream.output.write($0) },
      errors: { note(log, $0) }, until: { _ = await signals.wait() })
  }

  /// A line the server says while it runs (`susi server: warning: …`), as a log line.
  static func note(_ log: OperatorLog, _ line: String) {
    var text = Substring(line)
    if text.hasPrefix("susi server: ") { text = text.dropFirst("susi server: ".count) }
    while text.last == "\n" { text = text.dropLast() }
    if text.hasPrefix("warning: ") {
      log.warning(String(text.dropFirst("warning: ".count)))
    } else if text.hasPrefix("cannot ") {
      log.error(String(text))
    } else {
      log.info(String(text))
    }
  }

  /// `--check-skills DIR`: every load warning, then the example outcomes, then the summary.
  static func checkSkills(_ folder: String, listExamples: Bool) -> Int32 {
    if let problem = skillFolderProblem(folder) {
      StandardStream.error.line("susi server: \(problem.message)")
      return problem.exitCode
    }
    let check = SkillCheck.run(dataDirectory: URL(fileURLWithPath: folder))
    _ = StandardStream.output.write(check.report(listingExamples: listExamples))
    return 0
  }

  /// `susi server use [URL]`: prints or changes the remembered server.
  static func use(_ invocation: Invocation) -> Int32 {
    let arguments = invocation.arguments
    guard arguments[0] == "use" else {
      return UsageError(
        "'susi server' takes options, or 'use URL', not '\(arguments[0])'",
        suggestion: Spelling.closest(to: arguments[0], in: ["use"])
      ).report(spec)
    }
    let stateDirectory = invocation.common.stateDirectory
    guard arguments.count == 2 else {
      do throws(UsageError) {
        let remembered = try RememberedServer.load(stateDirectory: stateDirectory)
        StandardStream.output.line(remembered?.server ?? State.embeddedServer)
        return ExitCode.success
      } catch {
        StandardStream.error.line("susi: \(error)")
        return ExitCode.usage
      }
    }
    guard let url = Validation.serverURL(arguments[1]) else {
      return UsageError(
        "'\(arguments[1])' is not a server URL; use http(s)://host[:port][/path] or 'embedded'"
      ).report(spec)
    }
    do {
      try RememberedServer.remember(url, stateDirectory: stateDirectory)
    } catch let error as UsageError {
      StandardStream.error.line("susi: \(error)")
      return ExitCode.usage
    } catch {
      StandardStream.error.line("susi: cannot remember the server: \(error)")
      return ExitCode.cannotCreate
    }
    StandardStream.output.line(
      url == State.embeddedServer
        ? "susi uses the built-in server from now on."
        : "susi uses \(url) from now on; 'susi server use embedded' goes back.")
    return ExitCode.success
  }

  /// The server's configuration from the command line; it keeps its state in
  /// STATE-DIR/server.
  static func configure(_ invocation: Invocation) throws(UsageError) -> ServerConfiguration {
    let parsed = invocation.parsed
    let port = try parsed.port(default: 0)
    var seed: UInt64?
    if let text = parsed.value(.seed) {
      guard let value = UInt64(text) else {
        throw UsageError("--seed takes a whole number from 0 to 2^64-1, not '\(text)'")
      }
      seed = value
    }
    var proxies: Set<String> = []
    if let text = parsed.value(.trustedProxy) {
      let list = text.split(separator: ",", omittingEmptySubsequences: false).map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      guard !list.contains(where: \.isEmpty) else {
        throw UsageError("--trusted-proxy takes addresses such as 127.0.0.1,::1, not '\(text)'")
      }
      proxies = Set(list)
    }
    let stateDirectory = URL(fileURLWithPath: invocation.common.stateDirectory + "/server")
    var data = parsed.value(.data).map { URL(fileURLWithPath: $0) }
    if data == nil {
      do {
        data = try SkillFolderChoice.resolve(
          requested: invocation.common.skills, serverStateDirectory: stateDirectory)
      } catch {
        throw UsageError("\(error)")
      }
    }
    var configuration = ServerConfiguration(
      host: BindAddress.numeric(parsed.value(.host) ?? "127.0.0.1"), port: port,
      dataDirectory: data, stateDirectory: stateDirectory,
      seed: seed, trustedProxies: proxies)
    configuration.allowsPrivateConsoleHosts = invocation.common.allowsPrivateTargets
    // Console rules' https fetches trust --ca-file (or the config file's ca-file) too.
    if let caFile = invocation.common.caFile {
      if let problem = ConsoleService.problem(withCAFile: caFile) {
        throw UsageError("--ca-file: \(problem)")
      }
      configuration.console.caFile = caFile
    }
    if let files = try ServingTLSFiles.resolve(parsed) {
      do throws(TLSSetupError) {
        configuration.tls = try HTTPServerTLS(
          certificateFile: files.certificate, keyFile: files.key)
      } catch {
        throw UsageError(error.message)
      }
    }
    return configuration
  }

  /// Why `--data DIR` cannot serve: a server answering every question with "no skill" is
  /// mistaken for a working one, so a folder without skills is refused at start.
  static func skillFolderProblem(_ path: String) -> (message: String, exitCode: Int32)? {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
      isDirectory.boolValue, FileManager.default.isReadableFile(atPath: path)
    else { return ("cannot read the skill folder \(path)", ExitCode.noInput) }
    guard !SkillLibrary.hasSkillFiles(in: URL(fileURLWithPath: path)) else { return nil }
    return (
      "\(path) holds no skills; skill files go in \(path)/models/MODEL/GROUP/LANGUAGE/NAME.txt",
      ExitCode.dataError
    )
  }
}
