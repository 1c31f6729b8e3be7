public import Foundation

/// Where tests keep their files: one folder per test process under the system's temporary
/// directory, removed when the process exits, so test runs leave nothing behind. Tests make their
/// own folders inside it (each under a fresh name), as they would in the temporary directory.
public enum TestScratch {
  public static let root: URL = {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "susi-tests-\(getpid())-\(UUID().uuidString.prefix(8))", isDirectory: true)
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(at: TestScratch.root) }
    return url
  }()
}
