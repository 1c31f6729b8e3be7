import Foundation
import SusiFiles
import SusiHTTPTesting
import SusiTesting
import Testing

/// The `susi` command line as a whole: help, version, typos and a locked log, through the binary.
@Suite
struct CommandLineAppTests {
  let susi: SusiBinary

  /// Fails every test of the suite, never skips it, when the binary is missing.
  init() throws {
    susi = try SusiBinary.built()
  }

  private func folder() throws -> String {
    let path = TestScratch.root.appendingPathComponent(
      "susi-cli-\(UUID().uuidString)"
    ).path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  @Test func helpFindsItsTopicPastCommonOptions() async throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let run = try await susi.run(
      ["--state-dir", dir, "help", "rate"], environment: SusiBinary.isolatedEnvironment(dir))
    #expect(run.status == 0)
    #expect(run.stdout.hasPrefix("Usage: susi rate NAME STARS"))
  }

  @Test func everyWayOfAskingForHelpWorks() async throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let environment = SusiBinary.isolatedEnvironment(dir)
    for arguments in [["--help"], ["-h"], ["help"]] {
      let run = try await susi.run(arguments, environment: environment)
      #expect(run.status == 0, "\(arguments)")
      #expect(run.stdout.contains("Commands:"), "\(arguments)")
      #expect(run.stdout.contains("replay"), "\(arguments)")
    }
    for arguments in [["help", "skills"], ["skills", "--help"], ["skills", "-h"]] {
      let run = try await susi.run(arguments, environment: environment)
      #expect(run.status == 0, "\(arguments)")
      #expect(run.stdout.hasPrefix("Usage: susi skills"), "\(arguments)")
    }
  }

  @Test func printsTheVersion() async throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let run = try await susi.run(["--version"], environment: SusiBinary.isolatedEnvironment(dir))
    #expect(run.status == 0)
    #expect(run.stdout.hasPrefix("susi "))
  }

  @Test func typosGetTheClosestMatchAndTheUsageLine() async throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let environment = SusiBinary.isolatedEnvironment(dir)
    let command = try await susi.run(["replya"], environment: environment)
    #expect(command.status == 64)
    #expect(command.stderr.contains("unknown command 'replya'; did you mean 'replay'?"))
    #expect(command.stderr.contains("Usage: susi"))
    let option = try await susi.run(["replay", "--stpe"], environment: environment)
    #expect(option.status == 64)
    #expect(option.stderr.contains("did you mean '--step'?"))
    let topic = try await susi.run(["help", "ratee"], environment: environment)
    #expect(topic.status == 64)
    #expect(topic.stderr.contains("did you mean 'rate'?"))
    let fsync = try await susi.run(
      ["--fsync", "sometimes", "replay"], environment: environment)
    #expect(fsync.status == 64)
    #expect(command.stdout.isEmpty && option.stdout.isEmpty && fsync.stdout.isEmpty)
  }

  @Test func anUnknownOptionBeforeTheCommandIsNamedNotItsValue() async throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let run = try await susi.run(
      ["--sever", "http://127.0.0.1:1", "ask", "hi"],
      environment: SusiBinary.isolatedEnvironment(dir))
    #expect(run.status == 64)
    #expect(run.stderr.contains("unknown option '--sever'; did you mean '--server'?"))
    #expect(!run.stderr.contains("unknown command"))
    // A command's own option before the command takes its value with it.
    let help = try await susi.run(
      ["--port", "0", "server", "--help"], environment: SusiBinary.isolatedEnvironment(dir))
    #expect(help.status == 0)
    #expect(help.stdout.hasPrefix("Usage: susi server"))
  }

  @Test func shortOptionsCombineAndTakeTheirValueAttached() async throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let environment = SusiBinary.isolatedEnvironment(dir)
    for arguments in [["server", "-p0", "--help"], ["server", "-hp0"], ["serve", "-p0", "-h"]] {
      let run = try await susi.run(arguments, environment: environment)
      #expect(run.status == 0, "\(arguments): \(run.stderr)")
      #expect(run.stdout.hasPrefix("Usage: susi serve"), "\(arguments)")
    }
  }

  /// `susi server` is read by the same command-line layer as every other command: the same
  /// errors, the same usage line, exit 64, nothing started.
  @Test func serverOptionsAreCheckedLikeEveryOtherCommand() async throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let environment = SusiBinary.isolatedEnvironment(dir)
    let cases: [([String], String)] = [
      (["server", "--verbose"], "option '--verbose' does not apply to 'susi server'"),
      (["server", "--frob"], "unknown option '--frob'"),
      (["server", "--port"], "--port"),
      (["server", "--port", "99999"], "--port takes a number from 0 to 65535, not '99999'"),
      (["server", "--seed", "-1"], "--seed takes a whole number"),
      (["server", "extra"], "extra"),
      (["server", "--trusted-proxy", ""], "--trusted-proxy takes addresses"),
      (["server", "--trusted-proxy", "a,,b"], "--trusted-proxy takes addresses"),
    ]
    for (arguments, message) in cases {
      let run = try await susi.run(arguments, environment: environment)
      #expect(run.status == 64, "\(arguments): \(run.stderr)")
      #expect(run.stdout.isEmpty, "\(arguments)")
      #expect(run.stderr.hasPrefix("susi: "), "\(arguments): \(run.stderr)")
      #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
      #expect(run.stderr.contains("susi server"), "\(arguments): the usage line")
    }
  }

  @Test func textStartingWithADashIsToldAboutDoubleDash() async throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let run = try await susi.run(
      ["ask", "-hello"], environment: SusiBinary.isolatedEnvironment(dir))
    #expect(run.status == 64)
    #expect(run.stderr.contains("put '--' before it"))
  }

  @Test func versionIsACommandAndDashVSuggestsDashDashVersion() async throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let environment = SusiBinary.isolatedEnvironment(dir)
    let version = try await susi.run(["version"], environment: environment)
    #expect(version.status == 0)
    #expect(version.stdout.hasPrefix("susi "))
    for arguments in [["-v"], ["ask", "-v", "hi"]] {
      let run = try await susi.run(arguments, environment: environment)
      #expect(run.status == 64, "\(arguments)")
      #expect(run.stderr.contains("did you mean '--version'?"), "\(arguments): \(run.stderr)")
    }
  }

  @Test func aLoginWithoutAPasswordIsAUsageOrInputErrorNotAnInterrupt() async throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let environment = SusiBinary.isolatedEnvironment(dir)
    let none = try await susi.run(["login", "me@example.org"], environment: environment)
    #expect(none.status == 64)
    #expect(none.stderr.contains("no password given"))
    let unreadable = try await susi.run(
      ["login", "me@example.org", "--password-file", dir + "/missing"], environment: environment)
    #expect(unreadable.status == 66)
    #expect(unreadable.stderr.contains("cannot read the password file"))
    // The default command takes --password-file too, before or without a command word.
    let chat = try await susi.run(
      ["--password-file", dir + "/missing", "--help"], environment: environment)
    #expect(chat.status == 0, "\(chat.stderr)")
    let piped = try await susi.run(
      ["--password-file", dir + "/missing"], input: "/login me@example.org\n",
      environment: environment)
    #expect(piped.stderr.contains("cannot read the password file"), "\(piped.stderr)")
  }

  @Test func aBadValueFromTheEnvironmentNamesTheVariable() async throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    for (variable, value) in [
      ("SUSI_SERVER", "nonsense"), ("SUSI_FSYNC", "sometimes"), ("SUSI_WEBSEARCH_URL", "ftp://x"),
    ] {
      var environment = SusiBinary.isolatedEnvironment(dir)
      environment[variable] = value
      let run = try await susi.run(["groups"], environment: environment)
      #expect(run.status == 64, "\(variable)")
      #expect(run.stderr.contains(variable), "\(variable): \(run.stderr)")
    }
  }

  @Test func theServerRefusesASkillFolderWithoutSkills() async throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let environment = SusiBinary.isolatedEnvironment(dir)
    let empty = try await susi.run(["server", "--data", dir], environment: environment)
    #expect(empty.status == 65)
    #expect(empty.stderr.contains("holds no skills"))
    #expect(empty.stdout.isEmpty)
    let missing = try await susi.run(
      ["server", "--data", dir + "/missing"], environment: environment)
    #expect(missing.status == 66)
    #expect(missing.stderr.contains("cannot read the skill folder"))
  }

  @Test(arguments: ["server", "serve"])
  func bothServersBindLocalhost(command: String) async throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let server = try susi.start(
      [command, "--host", "localhost", "--port", "0", "--state-dir", dir],
      environment: SusiBinary.isolatedEnvironment(dir))
    defer { server.stop() }
    // The first line is the URL once listening.
    let firstLine = try await onThread { try server.nextLine() } ?? ""
    _ = await onThread { server.stop() }
    #expect(firstLine.hasPrefix("http://127.0.0.1:"), "\(firstLine)")
  }

  @Test func switchingToTheBuiltInServerAfterServerAnswers() async throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    // Nothing listens on port 9 (discard) here; the questions go to the built-in server.
    let run = try await susi.run(
      ["--server", "http://127.0.0.1:9"], input: "/server embedded\nflip a coin\n",
      environment: SusiBinary.isolatedEnvironment(dir))
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.contains("Now using the built-in server at http://127.0.0.1:"))
    #expect(!run.stderr.contains("failed"), "\(run.stderr)")
  }

  @Test func anOptionACommandHasNoUseForIsRefused() async throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let run = try await susi.run(
      ["server", "--log", dir + "/events.jsonl"], environment: SusiBinary.isolatedEnvironment(dir))
    #expect(run.status == 64)
    #expect(run.stderr.contains("option '--log' does not apply to 'susi server'"))
    #expect(run.stdout.isEmpty)
  }

  @Test func aSecondSusiOnTheSameLogWorksBesideTheFirst() async throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let environment = SusiBinary.isolatedEnvironment(dir)
    let first = try susi.start(
      ["jsonl", "--state-dir", dir, "--fsync", "never", "--drain-timeout", "120"],
      environment: environment)
    defer { first.stop() }
    // The first holds the log once it has answered a line.
    first.send("{\"type\":\"loadGroups\",\"id\":1}\n")
    let answered = try await onThread { try first.nextLine() }
    #expect(answered != nil, "\(first.errors)")
    let second = try await susi.run(
      ["ask", "hi", "--state-dir", dir], environment: environment)
    #expect(second.status == 0, "\(second.stderr)")
    #expect(!second.stdout.isEmpty)
    first.closeInput()
    #expect(await onThread { first.waitForExit().status } == 0)
  }
}
