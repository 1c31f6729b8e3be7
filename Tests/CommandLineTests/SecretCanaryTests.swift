import Foundation
import SusiHTTPTesting
import SusiTesting
import Testing

/// A whole session through the built binary that logs in with a known password and receives a
/// token: neither string may appear in the log, on stdout or stderr, or in any file of the state
/// folder except the credentials file that holds the token.
@Suite
struct SecretCanaryTests {
  let susi: SusiBinary

  /// Fails every test of the suite, never skips it, when the binary is missing.
  init() throws {
    susi = try SusiBinary.built()
  }

  @Test func thePasswordAndTheTokenStayOutOfEverything() async throws {
    let dir = TestScratch.root.appendingPathComponent(
      "susi-canary-\(UUID().uuidString)"
    ).path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let environment = SusiBinary.isolatedEnvironment(dir)
    let password = "Canary-Pass-9931!"
    let account = #""email":"canary@example.org","password":"\#(password)""#
    let lines = [
      #"{"type":"signup","payload":{\#(account)}}"#,
      #"{"type":"login","payload":{"email":"canary@example.org","password":"wrong-\#(password)"}}"#,
      #"{"type":"login","payload":{\#(account)}}"#,
      #"{"type":"loadSkills"}"#,
      #"{"type":"submitRating","payload":{"group":"Knowledge","skill":"Synonyms","stars":5}}"#,
      #"{"type":"changeSettings","payload":{"settings":{"theme":"dark"}}}"#,
      #"{"type":"syncSettings"}"#,
      #"{"type":"sendMessage","payload":{"query":"hi"}}"#,
      #"{"type":"loadHistory"}"#,
    ]
    let jsonl = try await susi.run(
      ["jsonl", "--state-dir", dir], input: lines.joined(separator: "\n") + "\n",
      environment: environment)
    #expect(jsonl.status == 0, "\(jsonl.stderr)")
    // The text frontend too: a one-shot that reads the password from a file.
    let passwordFile = dir + "/password.txt"
    try password.write(toFile: passwordFile, atomically: true, encoding: .utf8)
    let text = try await susi.run(
      ["login", "canary@example.org", "--password-file", passwordFile, "--state-dir", dir],
      environment: environment)
    #expect(text.status == 0, "\(text.stderr)")
    try FileManager.default.removeItem(atPath: passwordFile)

    // The token the server issued, from the one place allowed to hold it.
    let credentials = try FileManager.default.contentsOfDirectory(atPath: dir + "/credentials")
    #expect(credentials.count == 1)
    let credentialsPath = dir + "/credentials/" + credentials[0]
    let stored = try String(contentsOfFile: credentialsPath, encoding: .utf8)
    let token = try #require(
      stored.split(separator: "\"").drop { $0 != "access_token" }.dropFirst(2).first.map(
        String.init))
    #expect(token.count >= 20)

    for (name, output) in [
      ("jsonl stdout", jsonl.stdout), ("jsonl stderr", jsonl.stderr), ("text stdout", text.stdout),
      ("text stderr", text.stderr),
    ] {
      #expect(!output.contains(password), "\(name) holds the password")
      #expect(!output.contains(token), "\(name) holds the token")
    }
    let files = FileManager.default.enumerator(atPath: dir)?.compactMap { $0 as? String } ?? []
    var scanned = 0
    for file in files where dir + "/" + file != credentialsPath {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: dir + "/" + file, isDirectory: &isDirectory),
        !isDirectory.boolValue
      else {
        continue
      }
      let bytes = try Data(contentsOf: URL(fileURLWithPath: dir + "/" + file))
      #expect(bytes.range(of: Data(password.utf8)) == nil, "\(file) holds the password")
      #expect(bytes.range(of: Data(token.utf8)) == nil, "\(file) holds the token")
      scanned += 1
    }
    #expect(files.contains("events.jsonl"))
    #expect(scanned >= 3)
    let log = try String(contentsOfFile: dir + "/events.jsonl", encoding: .utf8)
    #expect(log.contains("\"type\":\"loggedIn\""))
    #expect(log.contains("[redacted]"))
  }
}
