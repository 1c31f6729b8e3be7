import Glibc

/// While `susi serve` runs it owns the files beside its log that it keeps in memory and rewrites
/// whole: subscribers and delivery cursors (and it delivers every event once). Ownership is an
/// exclusive `flock` on `LOG.serve.lock`, dropped by the kernel when the process ends. Other susi
/// processes share the log itself and the keys file (changed under its own lock, and read again
/// by the server when the log says a key changed); a second `susi serve`, or a command-line
/// change to the subscribers, is refused while a server owns them. Read-only commands take
/// nothing.
final class ServeOwnership {
  private let fd: Int32

  /// Takes ownership of the files beside `log`, or nil when a running `susi serve` holds it.
  init?(log: String) {
    let fd = open(log + ".serve.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    // A lock file that cannot be made (a read-only folder) cannot be shared either.
    guard fd >= 0 else { return nil }
    while flock(fd, LOCK_EX | LOCK_NB) != 0 {
      if errno == EINTR { continue }
      close(fd)
      return nil
    }
    self.fd = fd
  }

  deinit { close(fd) }
}
