import Foundation
import SusiHTTPTesting
import SusiTesting

#if canImport(Glibc)
  import Glibc
#endif

/// The built `susi web`, running with the built-in server and a state folder of its own.
final class BrowserSusi: Sendable {
  /// The address it printed: `http://127.0.0.1:PORT/?token=TOKEN`.
  let url: String
  /// `http://127.0.0.1:PORT`
  let origin: String
  let folder: URL
  /// A serve key of the `default` group (`startServe` only).
  let key: String?
  private let process: SusiProcess

  /// Starts `susi web --port 0` and waits (at most `seconds`) for the address it prints.
  static func start(seconds: Double = 60) async throws -> BrowserSusi {
    let folder = try makeFolder()
    let process = try launch(["web", "--port", "0"] + commonArguments(folder), in: folder)
    let line = try await firstLine(of: process, seconds: seconds)
    guard let line, line.hasPrefix("http://127.0.0.1:"), let range = line.range(of: "/?token=")
    else {
      throw failure(process, "susi web printed \(line.map { "'\($0)'" } ?? "nothing")")
    }
    return BrowserSusi(
      url: line, origin: String(line[..<range.lowerBound]), folder: folder, process: process,
      key: nil)
  }

  /// Starts `susi serve --web --port 0` with a first key (`susi serve keys init`) and a key of
  /// the `default` group, which may chat and browse but not log in or rate; the pages are at
  /// `ORIGIN/web/`.
  static func startServe(seconds: Double = 60) async throws -> BrowserSusi {
    let folder = try makeFolder()
    _ = try await administer(["keys", "init"], in: folder, seconds: seconds)
    let key = try await administer(
      ["keys", "issue", "--groups", "default"], in: folder, seconds: seconds)
    let process = try launch(
      ["serve", "--web", "--port", "0"] + commonArguments(folder), in: folder)
    let line = try await firstLine(of: process, seconds: seconds)
    guard let line, line.hasPrefix("http://127.0.0.1:") else {
      throw failure(process, "susi serve printed \(line.map { "'\($0)'" } ?? "nothing")")
    }
    return BrowserSusi(
      url: line + "/web/", origin: line, folder: folder, process: process, key: key)
  }

  /// Runs `susi serve ARGUMENTS` to its end and returns the key it printed.
  private static func administer(_ arguments: [String], in folder: URL, seconds: Double)
    async throws -> String
  {
    let run = try await SusiBinary.built().run(
      ["serve"] + arguments + commonArguments(folder), environment: environment(folder),
      timeout: seconds)
    let key = run.stdout.split(separator: "\n").first.map(String.init)
    guard let key, key.hasPrefix("susi_") else {
      throw ChromiumError(
        "susi serve \(arguments.joined(separator: " ")) printed \(key ?? "nothing"); "
          + "stderr: \(run.stderr)")
    }
    return key
  }

  private static func makeFolder() throws -> URL {
    let folder = TestScratch.root.appendingPathComponent(
      "susi-web-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
  }

  private static func commonArguments(_ folder: URL) -> [String] {
    [
      "--state-dir", folder.appendingPathComponent("state").path, "--log",
      folder.appendingPathComponent("events.jsonl").path,
    ]
  }

  /// The built-in server's pages name a few images on the internet (a link preview's picture);
  /// a proxy that answers nothing keeps susi's https requests on this machine.
  private static func environment(_ folder: URL) -> [String: String] {
    let nowhere = "http://127.0.0.1:9"
    return [
      "PATH": "/usr/bin:/bin", "HOME": folder.path, "XDG_STATE_HOME": folder.path + "/xdg",
      "LANG": "C.UTF-8", "https_proxy": nowhere, "HTTPS_PROXY": nowhere, "http_proxy": nowhere,
      "all_proxy": nowhere, "no_proxy": "127.0.0.1,localhost",
    ]
  }

  private static func launch(_ arguments: [String], in folder: URL) throws -> SusiProcess {
    try SusiBinary.built().start(arguments, environment: environment(folder))
  }

  /// The first line `process` printed; nil when it ended without one. Throws when none came
  /// within `seconds` (the process is then stopped).
  private static func firstLine(of process: SusiProcess, seconds: Double) async throws -> String? {
    do {
      return try await onThread { try process.nextLine(timeout: seconds) }
    } catch {
      throw failure(process, "\(error)")
    }
  }

  /// Stops `process` and describes what went wrong, with everything it wrote to stderr.
  private static func failure(_ process: SusiProcess, _ what: String) -> ChromiumError {
    let ended = process.stop()
    return ChromiumError("\(what) instead of its address; stderr: \(ended.stderr)")
  }

  private init(url: String, origin: String, folder: URL, process: SusiProcess, key: String?) {
    self.key = key
    self.url = url
    self.origin = origin
    self.folder = folder
    self.process = process
  }

  /// The event log as text.
  var log: String {
    (try? String(contentsOf: folder.appendingPathComponent("events.jsonl"), encoding: .utf8)) ?? ""
  }

  /// Stops susi (SIGTERM, as a person's Ctrl-C would) and removes its folder.
  func stop() {
    process.stop(timeout: 15)
    try? FileManager.default.removeItem(at: folder)
  }
}
