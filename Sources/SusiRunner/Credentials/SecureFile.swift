import SusiCrypto

#if canImport(Glibc)
  import Glibc
#endif

/// File operations for private data: created with their final mode from the first moment,
/// replaced atomically, and made durable (file and directory fsync).
enum SecureFile {
  /// Creates `path` and any missing parents with `mode` (parents that exist are left alone).
  static func makeDirectory(_ path: String, mode: mode_t = 0o700) throws(RunnerFailure) {
    var prefix = path.hasPrefix("/") ? "" : "."
    for component in path.split(separator: "/") {
      prefix += "/" + component
      if mkdir(prefix, mode) != 0 && errno != EEXIST {
        throw failure("cannot create the folder \(prefix)")
      }
    }
    var info = stat()
    guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
      throw RunnerFailure(
        .io, "\(path) is not a folder; move it away or choose another state folder")
    }
  }

  /// Replaces `path` with `bytes`: written to a new temporary file opened with
  /// `O_CREAT|O_EXCL|O_NOFOLLOW` and `mode` (so the data is never readable under a wider
  /// mode), fsynced, renamed over `path`, and the folder fsynced.
  static func writeAtomically(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600)
    throws(RunnerFailure)
  {
    let folder = directory(of: path)
    let temporary =
      "\(folder)/.\(baseName(of: path)).\(ByteEncoding.hex(Digest.randomBytes(6))).tmp"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
    guard fd >= 0 else { throw failure("cannot create \(temporary)") }
    var written = 0
    while written < bytes.count {
      let n = bytes.withUnsafeBytes { raw in
        write(fd, raw.baseAddress! + written, raw.count - written)
      }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else {
        let error = failure("cannot write \(temporary)")
        close(fd)
        unlink(temporary)
        throw error
      }
      written += n
    }
    guard fsync(fd) == 0 else {
      let error = failure("cannot flush \(temporary) to disk")
      close(fd)
      unlink(temporary)
      throw error
    }
    close(fd)
    guard rename(temporary, path) == 0 else {
      let error = failure("cannot move \(temporary) to \(path)")
      unlink(temporary)
      throw error
    }
    syncDirectory(folder)
  }

  /// The contents of a private file, or nil when it does not exist. Refuses (with a fix-it
  /// message, as ssh does for keys) a file that others may read or write, one owned by
  /// someone else, a symbolic link, or one larger than `maximumBytes`.
  static func readPrivate(_ path: String, maximumBytes: Int) throws(RunnerFailure) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else {
      if errno == ENOENT { return nil }
      if errno == ELOOP {
        throw RunnerFailure(.io, "\(path) is a symbolic link; replace it with a regular file")
      }
      throw failure("cannot open \(path)")
    }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw failure("cannot inspect \(path)") }
    let permissions = info.st_mode & 0o777
    guard permissions & 0o077 == 0 else {
      throw RunnerFailure(
        .io,
        "permissions \(octal(permissions)) for '\(path)' are too open: it holds a secret;"
          + " run chmod 600 \(path)")
    }
    guard info.st_uid == geteuid() else {
      throw RunnerFailure(.io, "\(path) belongs to another user; remove it and log in again")
    }
    guard Int(info.st_size) <= maximumBytes else {
      throw RunnerFailure(.io, "\(path) is larger than \(maximumBytes) bytes; remove it")
    }
    var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
    var filled = 0
    while filled < bytes.count {
      let n = bytes.withUnsafeMutableBytes { raw in
        read(fd, raw.baseAddress! + filled, raw.count - filled)
      }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { break }
      filled += n
    }
    return Array(bytes.prefix(filled))
  }

  /// Removes `path` (nothing to do when it is gone) and makes the removal durable.
  static func remove(_ path: String) throws(RunnerFailure) {
    guard unlink(path) == 0 || errno == ENOENT else { throw failure("cannot remove \(path)") }
    syncDirectory(directory(of: path))
  }

  /// Flushes a folder's entries (a rename or unlink inside it) to disk.
  static func syncDirectory(_ path: String) {
    let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { return }
    fsync(fd)
    close(fd)
  }

  static func directory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }

  static func baseName(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return path }
    return String(path[path.index(after: slash)...])
  }

  static func octal(_ mode: mode_t) -> String {
    let digits = String(mode, radix: 8)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
  }

  /// An `io` failure naming what failed and the system's reason.
  static func failure(_ what: String) -> RunnerFailure {
    RunnerFailure(.io, "\(what): \(String(cString: strerror(errno)))")
  }
}
