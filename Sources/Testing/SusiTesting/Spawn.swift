public import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Starts child processes with `posix_spawn`. Foundation's `Process.run` crashed the test run
/// inside its own bookkeeping of open descriptors while other tests opened and closed theirs;
/// this does what the tests need without it. The child gets the standard streams it is given
/// and no other descriptor of the test process, in a process group of its own.
public enum Spawn {
  /// Why a child could not be started.
  public struct Failure: Error, CustomStringConvertible {
    public var description: String
  }

  /// How a child ended.
  public struct Exit: Sendable {
    /// The exit status, or the signal's number when a signal ended it.
    public var status: Int32
    /// True when a signal ended the child.
    public var signalled: Bool
  }

  /// Starts `path` with `arguments` and `environment`; `streams` maps each descriptor the child
  /// gets (0, 1, 2 and any after them) to the test's descriptor that becomes it. Returns the
  /// pid.
  public static func start(
    _ path: String, _ arguments: [String], environment: [String: String],
    streams: [Int32: Int32]
  ) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    // The sources are moved out of the way first, so that no move overwrites a source that a
    // later move still needs.
    var moved: [Int32: Int32] = [:]
    for (child, source) in streams {
      let high = fcntl(source, F_DUPFD_CLOEXEC, 10)
      guard high >= 0 else { throw Failure(description: "dup: \(errorText(errno))") }
      moved[child] = high
    }
    defer { for high in moved.values { close(high) } }
    for (child, high) in moved {
      posix_spawn_file_actions_adddup2(&actions, high, child)
    }
    guard closeFrom(&actions, (streams.keys.max() ?? 2) + 1) == 0 else {
      throw Failure(description: "this C library cannot close a child's other descriptors")
    }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    // A child starts with every signal unblocked, whatever the spawning thread blocks (a thread
    // that waits on signals blocks them, and a child would inherit that mask and ignore SIGTERM).
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK))
    var pid: pid_t = 0
    let status = withCStrings([path] + arguments) { argv in
      withCStrings(environment.map { "\($0.key)=\($0.value)" }) { envp in
        posix_spawn(&pid, path, &actions, &attributes, argv, envp)
      }
    }
    guard status == 0 else {
      throw Failure(description: "could not start \(path): \(errorText(status))")
    }
    return pid
  }

  /// A pipe whose ends are closed on exec, so that no child started meanwhile inherits one.
  public static func pipe() throws -> (read: Int32, write: Int32) {
    typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>?, Int32) -> Int32
    guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "pipe2") else {
      throw Failure(description: "this C library has no pipe2")
    }
    var fds: [Int32] = [0, 0]
    guard unsafeBitCast(symbol, to: Pipe2.self)(&fds, O_CLOEXEC) == 0 else {
      throw Failure(description: "pipe: \(errorText(errno))")
    }
    return (fds[0], fds[1])
  }

  /// `/dev/null`, opened for reading and writing and closed on exec.
  public static func nullDevice() throws -> Int32 {
    let fd = open("/dev/null", O_RDWR | O_CLOEXEC)
    guard fd >= 0 else { throw Failure(description: "/dev/null: \(errorText(errno))") }
    return fd
  }

  /// Waits for child `pid` to end and reaps it. Blocks.
  public static func waitForExit(_ pid: pid_t) -> Exit {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 {
      if errno != EINTR { return Exit(status: -1, signalled: false) }
    }
    let signal = status & 0x7f
    if signal == 0 { return Exit(status: (status >> 8) & 0xff, signalled: false) }
    return Exit(status: signal, signalled: true)
  }

  /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which the Glibc module
  /// does not show; looked up by name.
  private static func closeFrom(_ actions: inout posix_spawn_file_actions_t, _ lowest: Int32)
    -> Int32
  {
    typealias CloseFrom =
      @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32
    guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np")
    else { return -1 }
    return unsafeBitCast(symbol, to: CloseFrom.self)(&actions, lowest)
  }

  private static func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }

  /// Runs `body` with `strings` as a nil-terminated array of C strings.
  private static func withCStrings<T>(
    _ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> T
  ) -> T {
    let pointers = strings.map { strdup($0) } + [nil]
    defer { for pointer in pointers { free(pointer) } }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
  }
}
