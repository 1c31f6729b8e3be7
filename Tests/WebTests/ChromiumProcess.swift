import Foundation
import SusiHTTPTesting
import SusiJSON
import SusiTesting
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Why the browser could not be used.
struct ChromiumError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// A headless Chromium, started with `--remote-debugging-pipe`: it reads DevTools protocol
/// messages on its fd 3 and writes them on its fd 4, each a JSON text ended by a NUL byte.
/// No port is opened, so nothing else on the machine can talk to it.
final class ChromiumProcess: Sendable {
  let pid: pid_t
  /// The profile, the browser's own home and its output live here; removed on `stop()`.
  let folder: URL
  private let toBrowser: Int32
  private let fromBrowser: Int32
  private let writeLock = Mutex(())

  /// The browser: `SUSI_CHROMIUM`, or `chromium` on the PATH.
  static let program = OutsideProgram(
    variable: "SUSI_CHROMIUM", names: ["chromium", "chromium-browser"], package: "chromium")

  /// The browser's binary, or an error that says how to install it.
  static func executable() throws -> String {
    guard let path = program.path else {
      throw ChromiumError(
        "Chromium is not installed, and the browser tests need it: install Debian's chromium "
          + "package (apt-get install -y chromium) or set SUSI_CHROMIUM to a Chromium binary")
    }
    guard FileManager.default.isExecutableFile(atPath: path) else {
      throw ChromiumError("\(path) (from SUSI_CHROMIUM) is not an executable file")
    }
    return path
  }

  /// Starts a headless browser with a fresh profile in a temporary folder.
  init() throws {
    let path = try Self.executable()
    folder = TestScratch.root.appendingPathComponent(
      "susi-chromium-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let (childReads, parentWrites) = try Spawn.pipe()
    let (parentReads, childWrites) = try Spawn.pipe()
    let arguments = [
      "--headless", "--no-sandbox", "--remote-debugging-pipe",
      "--user-data-dir=\(folder.path)/profile", "--no-first-run", "--no-default-browser-check",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
      "--disable-default-apps", "--disable-extensions", "--disable-dev-shm-usage",
      "--disable-gpu", "--mute-audio", "--hide-scrollbars", "--lang=en-US",
      // A proxy that answers nothing: should the page ever ask for anything beyond loopback
      // (which Chromium never sends through a proxy), it fails here instead of leaving.
      "--proxy-server=http://127.0.0.1:9", "about:blank",
    ]
    var environment = ProcessInfo.processInfo.environment
    environment["HOME"] = folder.path
    let output = open(
      folder.appendingPathComponent("output.txt").path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
      0o600)
    defer {
      close(childReads)
      close(childWrites)
      close(output)
    }
    // The browser outlives every test: it must not keep other tests' pipes open (a child
    // waiting for the end of its input would wait for ever), so it gets fds 0 to 4 only.
    do {
      let nothing = try Spawn.nullDevice()
      defer { close(nothing) }
      pid = try Spawn.start(
        path, arguments, environment: environment,
        streams: [0: nothing, 1: output, 2: output, 3: childReads, 4: childWrites])
    } catch {
      close(parentReads)
      close(parentWrites)
      throw ChromiumError("\(error)")
    }
    toBrowser = parentWrites
    fromBrowser = parentReads
  }

  /// Sends one message (a NUL is appended).
  func send(_ message: [UInt8]) throws {
    try writeLock.withLock { _ in
      var bytes = message
      bytes.append(0)
      var offset = 0
      while offset < bytes.count {
        let written = bytes[offset...].withUnsafeBytes {
          write(toBrowser, $0.baseAddress, $0.count)
        }
        if written < 0 {
          if errno == EINTR { continue }
          throw ChromiumError("the browser's pipe is closed: \(String(cString: strerror(errno)))")
        }
        offset += written
      }
    }
  }

  /// Reads messages until the browser closes its end, calling `receive` with each, on a thread
  /// of its own (the reads block); the thread closes the pipe when it ends.
  func startReading(
    _ receive: @escaping @Sendable ([UInt8]) -> Void, ended: @escaping @Sendable () -> Void
  ) {
    let fd = fromBrowser
    let thread = Thread {
      var pending: [UInt8] = []
      var buffer = [UInt8](repeating: 0, count: 1 << 16)
      while true {
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        if count <= 0 { break }
        pending.append(contentsOf: buffer[0..<count])
        while let end = pending.firstIndex(of: 0) {
          receive(Array(pending[..<end]))
          pending.removeSubrange(...end)
        }
      }
      close(fd)
      ended()
    }
    thread.start()
  }

  /// Ends the browser and removes its folder (the profile, its cache and its output).
  func stop() {
    kill(pid, SIGKILL)
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    close(toBrowser)
    try? FileManager.default.removeItem(at: folder)
  }

  /// What the browser printed (for failure messages).
  var output: String {
    (try? String(contentsOf: folder.appendingPathComponent("output.txt"), encoding: .utf8)) ?? ""
  }
}
