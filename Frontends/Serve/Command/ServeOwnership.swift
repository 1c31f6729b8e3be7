import Glibc
import SusiFiles

/// While `susi serve` runs it owns the files beside its log that it keeps in memory and rewrites
/// whole: subscribers and delivery cursors (and it delivers every event once). Ownership is an
/// exclusive `flock` on `LOG.serve.lock`, dropped by the kernel when the process ends. Other susi
/// processes share the log itself and the keys file (changed under its own lock, and read again
/// by the server when the log says a key changed); a second `susi serve`, or a command-line
/// change to the subscribers, is refused while a server owns them. Read-only commands take
/// nothing.
final class ServeOwnership {
  private let fd: Int32

  /// Why ownership was not taken: a running `susi serve` owns the files (`held`), or the lock
  /// file cannot be made.
  struct Refusal: Error {
    var message: String
  }

  /// Takes ownership of the files beside `log` (creating their folder, private, when missing);
  /// when a running server holds them, the refusal says `held`.
  init(log: String, held: String) throws(Refusal) {
    let path = log + ".serve.lock"
    do { try PrivateFile.makeDirectory(PrivateFile.directory(of: path)) } catch {
      throw Refusal(message: "\(error)")
    }
    let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard fd >= 0 else {
      throw Refusal(message: "cannot create \(path): \(String(cString: strerror(errno)))")
    }
    while flock(fd, LOCK_EX | LOCK_NB) != 0 {
      if errno == EINTR { continue }
      close(fd)
      throw Refusal(message: held)
    }
    self.fd = fd
  }

  deinit { close(fd) }
}
