import Foundation
import SusiCommandLine
import SusiHTTPClient

/// The `--ca-file` given with a server, kept in `STATE-DIR/ca-file` (the server's URL on the
/// first line, the file's path on the second) so later starts with the same server trust the
/// same CA without repeating the option. A start that chooses another server without
/// `--ca-file` does not use it.
enum RememberedCAFile {
  static func path(in stateDirectory: String) -> String { stateDirectory + "/ca-file" }

  /// The CA file to use for a start whose server will be `server`: the one given (checked, and
  /// remembered with `server`), else the one remembered with `server`. Throws a `StartupError`
  /// naming the file when it cannot be read or holds no certificate.
  static func resolve(given: String?, server: String, stateDirectory: String)
    throws(StartupError) -> String?
  {
    let record = path(in: stateDirectory)
    guard let given else {
      guard let text = try? String(contentsOfFile: record, encoding: .utf8) else { return nil }
      let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      guard lines.count >= 2, lines[0] == server, !lines[1].isEmpty else { return nil }
      return lines[1]
    }
    let absolute =
      given.hasPrefix("/")
      ? given : FileManager.default.currentDirectoryPath + "/" + given
    if let problem = SocketTransport.problem(withCAFile: absolute) {
      throw StartupError(
        message: "--ca-file: \(problem)", exitCode: ExitCode.usage)
    }
    let contents = Data("\(server)\n\(absolute)\n".utf8)
    _ = FileManager.default.createFile(
      atPath: record, contents: contents, attributes: [.posixPermissions: 0o600])
    return absolute
  }
}
