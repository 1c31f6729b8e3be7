import Foundation
import SusiCommandLine
import SusiHTTPTesting
import SusiJSON
import SusiTesting
import Testing

/// The config file and the common options `--quiet`, `--verbose` and `--color`: their
/// precedence (command line, environment, config file, default) and what they change.
@Suite
struct ConfigAndOptionsTests {
  let susi: SusiBinary

  init() throws { susi = try SusiBinary.built() }

  private func folder() throws -> String {
    let path = TestScratch.root.appendingPathComponent(
      "susi-config-\(UUID().uuidString)"
    ).path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  private func resolve(_ words: [String], _ environment: [String: String]) throws(UsageError)
    -> CommonOptions
  {
    let spec = CommandSpec(name: "x", summary: "", usage: "x")
    let parsed = try ParsedCommandLine.parse(words, for: spec, common: CommonOptions.specs)
    return try CommonOptions.resolve(parsed, environment: environment)
  }

  @Test func configFileServerIsADefaultBelowTheCommandLine() async throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let environment = SusiBinary.isolatedEnvironment(dir, ["XDG_CONFIG_HOME": dir + "/conf"])
    let set = try await susi.run(
      ["config", "set", "server", "http://127.0.0.1:1"], environment: environment)
    #expect(set.status == 0, "\(set.stderr)")
    let text = try String(contentsOfFile: dir + "/conf/susi/config", encoding: .utf8)
    #expect(text.contains("server = http://127.0.0.1:1"))
    let get = try await susi.run(["config", "get", "server"], environment: environment)
    #expect(get.stdout == "http://127.0.0.1:1\n")
    let failing = try await susi.run(["groups"], environment: environment)
    #expect(failing.status == 1)
    #expect(failing.stderr.contains("config file's server"), "\(failing.stderr)")
    let given = try await susi.run(["--server", "embedded", "groups"], environment: environment)
    #expect(given.status == 0, "\(given.stderr)")
    let list = try await susi.run(["config", "list", "--json"], environment: environment)
    #expect(list.stdout == #"{"server":"http://127.0.0.1:1"}"# + "\n")
    let unset = try await susi.run(["config", "unset", "server"], environment: environment)
    #expect(unset.status == 0)
    let unsetGet = try await susi.run(["config", "get", "server"], environment: environment)
    #expect(unsetGet.status == 1 && unsetGet.stdout.isEmpty)
    let fine = try await susi.run(["groups"], environment: environment)
    #expect(fine.status == 0, "\(fine.stderr)")
  }

  @Test func unknownConfigKeysAndValuesAreUsageErrors() async throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let environment = SusiBinary.isolatedEnvironment(dir)
    let key = try await susi.run(["config", "set", "colr", "never"], environment: environment)
    #expect(key.status == 64)
    #expect(key.stderr.contains("did you mean 'color'?"), "\(key.stderr)")
    let value = try await susi.run(
      ["config", "set", "color", "sometimes"], environment: environment)
    #expect(value.status == 64)
    let verb = try await susi.run(["config", "lsit"], environment: environment)
    #expect(verb.status == 64)
    #expect(verb.stderr.contains("did you mean 'list'?"))
    #expect(!FileManager.default.fileExists(atPath: dir + "/.config/susi/config"))
    // A broken file is named by every command, and 'susi config' can still mend it.
    try FileManager.default.createDirectory(
      atPath: dir + "/.config/susi", withIntermediateDirectories: true)
    try "color = never\nsrever = x\n".write(
      toFile: dir + "/.config/susi/config", atomically: true, encoding: .utf8)
    let broken = try await susi.run(["groups"], environment: environment)
    #expect(broken.status == 64)
    #expect(broken.stderr.contains("/.config/susi/config: no config key 'srever'"))
    let mended = try await susi.run(["config", "unset", "srever"], environment: environment)
    #expect(mended.status == 64, "an unknown key cannot be named, even to unset it")
  }

  @Test func colourFollowsTheOptionThenNoColorThenTheConfigFile() throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let home = ["HOME": dir]
    #expect(try resolve([], home).color == .auto)
    #expect(try resolve(["--no-color"], home).color == .never)
    #expect(
      try resolve(["--color=always"], home.merging(["NO_COLOR": "1"]) { $1 }).color == .always)
    #expect(try resolve([], home.merging(["NO_COLOR": "1"]) { $1 }).color == .never)
    try FileManager.default.createDirectory(
      atPath: dir + "/.config/susi", withIntermediateDirectories: true)
    try "# mine\ncolor = never\n".write(
      toFile: dir + "/.config/susi/config", atomically: true, encoding: .utf8)
    #expect(try resolve([], home).color == .never)
    #expect(try resolve(["--color", "always"], home).color == .always)
    #expect(throws: UsageError.self) { try resolve(["--color=sometimes"], home) }
    #expect(throws: UsageError.self) { try resolve(["--quiet", "--verbose"], home) }
    #expect(TerminalStyle.colorsAllowed(isTerminal: false, environment: [:], mode: .always))
    #expect(!TerminalStyle.colorsAllowed(isTerminal: true, environment: [:], mode: .never))
  }

  @Test func imageCacheLivesInTheCacheFolderUnlessOneIsAlreadyInTheStateFolder() throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    #expect(try resolve([], ["HOME": dir]).imageDirectory == dir + "/.cache/susi/images")
    #expect(
      try resolve([], ["HOME": dir, "XDG_CACHE_HOME": dir + "/c"]).imageDirectory
        == dir + "/c/susi/images")
    #expect(
      try resolve(["--state-dir", dir + "/s"], ["HOME": dir]).imageDirectory == dir + "/s/images")
    try FileManager.default.createDirectory(
      atPath: dir + "/.local/state/susi/images", withIntermediateDirectories: true)
    #expect(
      try resolve([], ["HOME": dir]).imageDirectory == dir + "/.local/state/susi/images",
      "an existing cache in the old place is kept")
  }

  @Test func verboseShowsRequestsWithSecretsMasked() async throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let environment = SusiBinary.isolatedEnvironment(dir)
    let password = "Verbose-Secret-9"
    try (password + "\n").write(toFile: dir + "/pw", atomically: true, encoding: .utf8)
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: dir + "/pw")
    let signup = try await susi.run(
      ["--verbose", "signup", "someone@example.org", "--password-file", dir + "/pw"],
      environment: environment)
    let login = try await susi.run(
      ["--verbose", "login", "someone@example.org", "--password-file", dir + "/pw"],
      environment: environment)
    #expect(login.status == 0, "\(login.stderr)")
    #expect(login.stderr.contains("/aaa/login.json"), "\(login.stderr)")
    #expect(login.stderr.contains("HTTP 200"))
    #expect(login.stderr.contains(" ms"))
    for run in [signup, login] {
      #expect(!run.stderr.contains(password), "\(run.stderr)")
    }
    let groups = try await susi.run(["--verbose", "groups"], environment: environment)
    #expect(groups.stderr.contains("/cms/getGroups.json"))
    #expect(
      !groups.stderr.contains("access_token=") || groups.stderr.contains("access_token=[redacted]"))
    let quiet = try await susi.run(["groups"], environment: environment)
    #expect(!quiet.stderr.contains("getGroups"))
  }

  @Test func serveListingsPrintJSON() async throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let environment = SusiBinary.isolatedEnvironment(dir)
    let initial = try await susi.run(
      ["serve", "keys", "init", "--label", "me"], environment: environment)
    #expect(initial.status == 0, "\(initial.stderr)")
    let keys = try await susi.run(["serve", "keys", "list", "--json"], environment: environment)
    #expect(keys.status == 0, "\(keys.stderr)")
    let listed = try JSONParser.parse(keys.stdout).array
    #expect(listed?.count == 1)
    #expect(listed?.first?["label"] == "me")
    #expect(listed?.first?["groups"]?.array?.isEmpty == false)
    let groups = try await susi.run(
      ["serve", "groups", "list", "--json"], environment: environment)
    #expect(groups.status == 0, "\(groups.stderr)")
    #expect(try JSONParser.parse(groups.stdout)["default"]?.array?.isEmpty == false)
  }

  @Test func everyExitCodeIsDocumentedAndLocalValidationExits64() async throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let environment = SusiBinary.isolatedEnvironment(dir)
    let help = try await susi.run(["--help"], environment: environment)
    for code in [0, 1, 64, 65, 66, 69, 70, 73, 74, 130] {
      #expect(
        help.stdout.split(separator: "\n").contains { $0.hasPrefix("  \(code) ") },
        "exit code \(code) in --help")
    }
    try "Secret-Passw0rd!\n".write(toFile: dir + "/pw", atomically: true, encoding: .utf8)
    let badEmail = try await susi.run(
      ["login", "not-an-address", "--password-file", dir + "/pw"], environment: environment)
    #expect(badEmail.status == 64, "\(badEmail.stderr)")
  }

  @Test func quietPrintsOnlyTheAnswer() async throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let environment = SusiBinary.isolatedEnvironment(dir)
    let noted = try await susi.run(["ask", "remind me to drink water"], environment: environment)
    #expect(noted.stderr.contains("SUSI planned another answer"), "\(noted.stderr)")
    let quiet = try await susi.run(
      ["--quiet", "ask", "remind me to drink water"], environment: environment)
    #expect(quiet.status == 0)
    #expect(quiet.stdout == "I will remind you in 30 minutes.\n")
    #expect(quiet.stderr.isEmpty, "\(quiet.stderr)")
  }
}

/// Remembering a server keeps the CA file remembered with it, and forgets one given for another.
@Suite struct RememberingAServerTests {
  @Test func aCAFileStaysWithItsServerOnly() throws {
    let dir = TestScratch.root.appendingPathComponent(
      "susi-remember-\(UUID().uuidString)"
    ).path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try RememberedServer(server: "https://a.example", caFile: "/ca.pem").save(stateDirectory: dir)
    try RememberedServer.remember("https://a.example", stateDirectory: dir)
    #expect(try RememberedServer.load(stateDirectory: dir)?.caFile == "/ca.pem")
    try RememberedServer.remember("https://b.example", stateDirectory: dir)
    let changed = try RememberedServer.load(stateDirectory: dir)
    #expect(changed == RememberedServer(server: "https://b.example", caFile: nil))
  }
}
