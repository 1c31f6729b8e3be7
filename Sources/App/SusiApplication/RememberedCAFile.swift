import Foundation
import SusiCommandLine
import SusiHTTPClient

/// The `--ca-file` given for the remembered server (`susi server use URL`) is kept beside it, in
/// `RememberedServer.caFile`, so later starts with that server trust the same CA without
/// repeating the option. A CA file given for a one-run server (`--server`, SUSI_SERVER) serves
/// that run only, as the server does.
enum RememberedCAFile {
  /// The CA file to use for a start whose server will be `server`: the one given (checked, and
  /// kept when `server` is the remembered one), else the one kept with `server`. Throws a
  /// `StartupError` naming the file when it cannot be read or holds no certificate.
  static func resolve(given: String?, server: String, stateDirectory: String)
    throws(StartupError) -> String?
  {
    let remembered = try? RememberedServer.load(stateDirectory: stateDirectory)
    guard let given else {
      guard let remembered, remembered.server == server else { return nil }
      return remembered.caFile
    }
    let absolute =
      given.hasPrefix("/")
      ? given : FileManager.default.currentDirectoryPath + "/" + given
    if let problem = SocketTransport.problem(withCAFile: absolute) {
      throw StartupError(message: "--ca-file: \(problem)", exitCode: ExitCode.usage)
    }
    if var kept = remembered, kept.server == server, kept.caFile != absolute {
      kept.caFile = absolute
      try? kept.save(stateDirectory: stateDirectory)
    }
    return absolute
  }
}
