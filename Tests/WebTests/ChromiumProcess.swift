import Foundation
import SusiJSON
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

  /// The browser named by `SUSI_CHROMIUM`, or `chromium` on the PATH.
  static func executable() throws -> String {
    let environment = ProcessInfo.processInfo.environment
    if let path = environment["SUSI_CHROMIUM"], !path.isEmpty {
      guard FileManager.default.isExecutableFile(atPath: path) else {
        throw ChromiumError("SUSI_CHROMIUM names \(path), which is not an executable file")
      }
      return path
    }
    for folder in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
      for name in ["chromium", "chromium-browser"] {
        let candidate = "\(folder)/\(name)"
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
      }
    }
    throw ChromiumError(
      "Chromium is not installed, and the browser tests need it: install Debian's chromium "
        + "package (apt-get install -y chromium) or set SUSI_CHROMIUM to a Chromium binary")
  }

  /// Starts a headless browser with a fresh profile in a temporary folder.
  init() throws {
    let path = try Self.executable()
    folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "susi-chromium-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let (childReads, parentWrites) = try Self.pipe()
    let (parentReads, childWrites) = try Self.pipe()
    let arguments = [
      path, "--headless", "--no-sandbox", "--remote-debugging-pipe",
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
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(
      &actions, 1, folder.appendingPathComponent("output.txt").path,
      O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    posix_spawn_file_actions_adddup2(&actions, childReads, 3)
    posix_spawn_file_actions_adddup2(&actions, childWrites, 4)
    // The browser outlives every test: it must not keep other tests' pipes open (a child
    // waiting for the end of its input would wait for ever), so it gets fds 0 to 4 only.
    guard Self.closeFrom(&actions, 5) == 0 else {
      close(childReads)
      close(childWrites)
      close(parentReads)
      close(parentWrites)
      throw ChromiumError("could not arrange the browser's file descriptors")
    }
    var pid: pid_t = 0
    let status = withCStrings(arguments) { argv in
      withCStrings(environment.map { "\($0.key)=\($0.value)" }) { envp in
        posix_spawn(&pid, path, &actions, nil, argv, envp)
      }
    }
    close(childReads)
    close(childWrites)
    guard status == 0 else {
      close(parentReads)
      close(parentWrites)
      throw ChromiumError("could not start \(path): \(String(cString: strerror(status)))")
    }
    self.pid = pid
    toBrowser = parentWrites
    fromBrowser = parentReads
  }

  /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which the Glibc module
  /// does not show; looked up by name.
  private static func closeFrom(_ actions: inout posix_spawn_file_actions_t, _ lowest: Int32)
    -> Int32
  {
    typealias CloseFrom =
      @convention(c) (
        UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32
      ) -> Int32
    guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np")
    else { return -1 }
    return unsafeBitCast(symbol, to: CloseFrom.self)(&actions, lowest)
  }

  /// A close-on-exec pipe whose ends are above fd 4, so that moving them to fds 3 and 4 in the
  /// child is always a real move (which clears close-on-exec there).
  private static func pipe() throws -> (read: Int32, write: Int32) {
    // Close-on-exec from the start (pipe2, looked up as closeFrom is), so no child another
    // test starts meanwhile inherits an end.
    typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>?, Int32) -> Int32
    guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "pipe2") else {
      throw ChromiumError("this C library has no pipe2")
    }
    var fds: [Int32] = [0, 0]
    guard unsafeBitCast(symbol, to: Pipe2.self)(&fds, O_CLOEXEC) == 0 else {
      throw ChromiumError("pipe: \(String(cString: strerror(errno)))")
    }
    let read = fcntl(fds[0], F_DUPFD_CLOEXEC, 10)
    let write = fcntl(fds[1], F_DUPFD_CLOEXEC, 10)
    close(fds[0])
    close(fds[1])
    return (read, write)
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

/// Calls `body` with a NULL-terminated C array of the strings.
private func withCStrings<R>(
  _ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R
) -> R {
  var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
  pointers.append(nil)
  defer { for pointer in pointers { free(pointer) } }
  return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
