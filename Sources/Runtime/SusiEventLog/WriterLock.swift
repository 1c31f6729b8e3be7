import Glibc

/// One writer per log: an exclusive, non-blocking `flock` on the writer's own descriptor.
///
/// `flock` locks belong to the open file description, so a second open of the same log conflicts
/// whether it comes from another process or from this one, and the lock vanishes with the process
/// (no stale lock files after a crash).
enum WriterLock {
  /// How long a busy lock is retried before the log counts as in use. A writer that has just
  /// closed the log can leave a copy of its descriptor, and so its lock, in a child process
  /// between fork and exec for a moment; a real second writer is still refused well within a
  /// second.
  static let patience: Duration = .milliseconds(200)

  /// Takes the lock on `fd`, or throws `.inUse` naming the holder's pid when it can be found.
  static func acquire(_ fd: Int32, path: String) throws(EventLogError) {
    let deadline = ContinuousClock.now + patience
    while flock(fd, LOCK_EX | LOCK_NB) != 0 {
      let code = errno
      if code == EINTR { continue }
      guard code == EWOULDBLOCK else {
        throw EventLogError(
          code: .fileError, path: path, errno: code,
          message: SystemCalls.Failure(errno: code, call: "flock").text)
      }
      guard ContinuousClock.now < deadline else { throw inUseError(fd, path: path) }
      usleep(10_000)
    }
  }

  private static func inUseError(_ fd: Int32, path: String) -> EventLogError {
    let holder = holderPID(of: fd)
    let message: String
    if holder == getpid() {
      message = "the log is already open for writing in this process; only one writer at a time"
    } else {
      let who = holder.map { "another susi process (pid \($0))" } ?? "another susi process"
      message =
        "the log is in use by \(who); only one process may write to an event log at a time. "
        + "Stop that process, or read the log without writing"
    }
    return EventLogError(code: .inUse, path: path, errno: EWOULDBLOCK, message: message)
  }

  /// The pid holding an exclusive `flock` on the file behind `fd`, found in `/proc/locks`
  /// (Linux only; nil elsewhere or when it cannot be told).
  static func holderPID(of fd: Int32) -> Int32? {
    guard let identity = try? SystemCalls.fileIdentity(fd),
      let text = readSmallFile("/proc/locks")
    else { return nil }
    let device = identity.device
    let major = ((device >> 8) & 0xFFF) | ((device >> 32) & ~0xFFF)
    let minor = (device & 0xFF) | ((device >> 12) & ~0xFF)
    for line in text.split(separator: "\n") {
      // "1: FLOCK  ADVISORY  WRITE 12345 fd:01:1234567 0 EOF"; waiters carry "->" after "1:".
      let fields = line.split(separator: " ")
      guard fields.count >= 6, fields[1] == "FLOCK", fields[3] == "WRITE" else { continue }
      let parts = fields[5].split(separator: ":")
      guard parts.count == 3, UInt64(parts[0], radix: 16) == major,
        UInt64(parts[1], radix: 16) == minor, UInt64(parts[2]) == identity.inode
      else { continue }
      return Int32(fields[4])
    }
    return nil
  }

  private static func readSmallFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 16_384)
    while bytes.count < 4 << 20 {
      let n = chunk.withUnsafeMutableBytes { buffer in
        try? SystemCalls.read(fd, into: buffer.baseAddress.unsafelyUnwrapped, count: buffer.count)
      }
      guard let n, n > 0 else { break }
      bytes.append(contentsOf: chunk[0..<n])
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
