import Foundation
import SusiFiles
import SusiTesting
import Synchronization

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
  private let process: Process
  private let ended: DispatchSemaphore

  /// The `susi` built next to the test bundle.
  static func executable() throws -> String {
    let me =
      (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
      ?? CommandLine.arguments[0]
    var folder = URL(fileURLWithPath: me).deletingLastPathComponent()
    for _ in 0..<4 {
      let candidate = folder.appendingPathComponent("susi").path
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
      folder = folder.deletingLastPathComponent()
    }
    throw ChromiumError("the susi executable is not built next to the tests; run swift build")
  }

  /// Starts `susi web --port 0` and waits (at most `seconds`) for the address it prints.
  static func start(seconds: Int = 60) async throws -> BrowserSusi {
    let folder = try makeFolder()
    let (process, ended, line) = try await launch(
      ["web", "--port", "0"] + commonArguments(folder), in: folder, seconds: seconds)
    guard let line, line.hasPrefix("http://127.0.0.1:"), let range = line.range(of: "/?token=")
    else {
      throw failure(process, folder, "susi web printed \(line.map { "'\($0)'" } ?? "nothing")")
    }
    return BrowserSusi(
      url: line, origin: String(line[..<range.lowerBound]), folder: folder, process: process,
      ended: ended, key: nil)
  }

  /// Starts `susi serve --web --port 0` with a first key (`susi serve keys init`) and a key of
  /// the `default` group, which may chat and browse but not log in or rate; the pages are at
  /// `ORIGIN/web/`.
  static func startServe(seconds: Int = 60) async throws -> BrowserSusi {
    let folder = try makeFolder()
    _ = try await administer(["keys", "init"], in: folder, seconds: seconds)
    let key = try await administer(
      ["keys", "issue", "--groups", "default"], in: folder, seconds: seconds)
    let (process, ended, line) = try await launch(
      ["serve", "--web", "--port", "0"] + commonArguments(folder), in: folder, seconds: seconds)
    guard let line, line.hasPrefix("http://127.0.0.1:") else {
      throw failure(process, folder, "susi serve printed \(line.map { "'\($0)'" } ?? "nothing")")
    }
    return BrowserSusi(
      url: line + "/web/", origin: line, folder: folder, process: process, ended: ended, key: key)
  }

  /// Runs `susi serve ARGUMENTS` to its end and returns the key it printed.
  private static func administer(_ arguments: [String], in folder: URL, seconds: Int) async throws
    -> String
  {
    let (process, ended, key) = try await launch(
      ["serve"] + arguments + commonArguments(folder), in: folder, seconds: seconds)
    if ended.wait(timeout: .now() + .seconds(seconds)) == .timedOut {
      kill(process.processIdentifier, SIGKILL)
    }
    guard let key, key.hasPrefix("susi_") else {
      throw failure(
        process, folder,
        "susi serve \(arguments.joined(separator: " ")) printed \(key ?? "nothing")")
    }
    return key
  }

  private static func makeFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
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

  /// Runs susi with `arguments` and returns it with the first line it printed (nil when none
  /// came within `seconds`).
  private static func launch(_ arguments: [String], in folder: URL, seconds: Int) async throws
    -> (Process, DispatchSemaphore, String?)
  {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: try executable())
    process.arguments = arguments
    // The built-in server's pages name a few images on the internet (a link preview's
    // picture); a proxy that answers nothing keeps susi's https requests on this machine.
    let nowhere = "http://127.0.0.1:9"
    process.environment = [
      "PATH": "/usr/bin:/bin", "HOME": folder.path, "XDG_STATE_HOME": folder.path + "/xdg",
      "LANG": "C.UTF-8", "https_proxy": nowhere, "HTTPS_PROXY": nowhere, "http_proxy": nowhere,
      "all_proxy": nowhere, "no_proxy": "127.0.0.1,localhost",
    ]
    let output = Pipe()
    process.standardOutput = output
    process.standardInput = FileHandle.nullDevice
    let errors = folder.appendingPathComponent("stderr.txt")
    if !FileManager.default.fileExists(atPath: errors.path) {
      _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
    }
    let handle = try FileHandle(forWritingTo: errors)
    try handle.seekToEnd()
    process.standardError = handle
    let ended = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in ended.signal() }
    try ProcessLaunch.run(process)
    let line = await firstLine(
      of: output.fileHandleForReading, pid: process.processIdentifier, seconds: seconds)
    return (process, ended, line)
  }

  private static func failure(_ process: Process, _ folder: URL, _ what: String) -> ChromiumError {
    if process.isRunning { process.terminate() }
    let errors =
      (try? String(contentsOf: folder.appendingPathComponent("stderr.txt"), encoding: .utf8)) ?? ""
    return ChromiumError("\(what) instead of its address; stderr: \(errors)")
  }

  private init(
    url: String, origin: String, folder: URL, process: Process, ended: DispatchSemaphore,
    key: String?
  ) {
    self.key = key
    self.url = url
    self.origin = origin
    self.folder = folder
    self.process = process
    self.ended = ended
  }

  /// Reads `handle` on a thread of its own until the first line (then goes on reading, so the
  /// pipe never fills); nil when the process ends without one or `seconds` pass (it is then
  /// ended).
  private static func firstLine(of handle: FileHandle, pid: pid_t, seconds: Int) async
    -> String?
  {
    let delivered = Once()
    return await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
      let deliver: @Sendable (String?) -> Void = { line in
        if delivered.first() { continuation.resume(returning: line) }
      }
      let reader = Thread {
        var bytes: [UInt8] = []
        while true {
          let data = handle.readAvailable()
          if data.isEmpty { break }
          bytes.append(contentsOf: data)
          if let end = bytes.firstIndex(of: UInt8(ascii: "\n")) {
            deliver(String(decoding: bytes[..<end], as: UTF8.self))
            bytes.removeAll(keepingCapacity: false)
          }
        }
        deliver(nil)
      }
      reader.start()
      Task {
        try? await Task.sleep(for: .seconds(seconds))
        if !delivered.happened {
          kill(pid, SIGTERM)
          deliver(nil)
        }
      }
    }
  }

  /// The event log as text.
  var log: String {
    (try? String(contentsOf: folder.appendingPathComponent("events.jsonl"), encoding: .utf8)) ?? ""
  }

  /// Stops susi (SIGTERM, as a person's Ctrl-C would) and removes its folder.
  func stop() {
    if process.isRunning {
      process.terminate()
      if ended.wait(timeout: .now() + 15) == .timedOut {
        kill(process.processIdentifier, SIGKILL)
        ended.wait()
      }
    }
    try? FileManager.default.removeItem(at: folder)
  }
}

/// Something that happens once: `first()` is true for the first caller only.
private final class Once: Sendable {
  private let done = Mutex(false)

  func first() -> Bool {
    done.withLock { done in
      defer { done = true }
      return !done
    }
  }

  var happened: Bool { done.withLock { $0 } }
}
