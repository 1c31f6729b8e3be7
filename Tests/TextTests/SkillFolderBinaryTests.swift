import Foundation
import SusiTesting
import Testing

/// `susi --skills DIR` through the built binary: the folder is kept for later runs, and its load
/// warnings are summed up when the skills are read afresh, not at every start.
@Suite struct SkillFolderBinaryTests {
  @Test func loadWarningsAreSaidWhenTheSkillsAreReadAfreshOnly() async throws {
    let susi = try SusiBinary.built()
    let folder = FileManagerTestFolder()
    defer { try? FileManager.default.removeItem(atPath: folder.path) }
    let skills = folder.path + "/skills/models/general/Test/en"
    try FileManager.default.createDirectory(atPath: skills, withIntermediateDirectories: true)
    let file = skills + "/greeting.txt"
    let text =
      "hello\nHi there!\n\nweather\n!console:It is $x$.\n{\"data\":[{\"x\":\"fine\"}]}\neol\nstray\n"
    try text.write(toFile: file, atomically: true, encoding: .utf8)
    func ask(_ extra: [String]) async throws -> SusiProcess.Output {
      try await susi.run(
        extra + ["ask", "hello", "--state-dir", folder.path + "/state"],
        environment: SusiBinary.isolatedEnvironment(folder.path))
    }
    let first = try await ask(["--skills", folder.path + "/skills"])
    #expect(first.stdout == "Hi there!\n", "\(first.stderr)")
    #expect(first.stderr.contains("1 load warning"), "\(first.stderr)")
    // The folder is kept, and nothing changed: no warning.
    let second = try await ask([])
    #expect(second.stdout == "Hi there!\n")
    #expect(!second.stderr.contains("load warning"), "\(second.stderr)")
    // A changed file is read afresh, and its warnings are said again.
    try (text + "\nbye\nSee you!\n").write(toFile: file, atomically: true, encoding: .utf8)
    let changed = try await ask([])
    #expect(changed.stderr.contains("1 load warning"), "\(changed.stderr)")
  }
}
