#if canImport(Glibc)
  public import Glibc
#endif

/// Files for private data — tokens, key hashes, accounts, cursors — handled one careful way:
/// created with their final mode from the first moment (never a wider one), replaced
/// atomically (a reader or a crash sees the old content or the new, never a mix), and made
/// durable (the file and its folder are fsynced).
public enum PrivateFile {
  /// Why a private file could not be read or written: a sentence that names the file.
  public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
    public var path: String
    public var message: String
    public init(path: String, message: String) {
      self.path = path
      self.message = message
    }
    /// A failure whose message is `PATH: reason`.
    public init(path: String, reason: String) {
      self.init(path: path, message: "\(path): \(reason)")
    }
    public var description: String { message }
  }

  /// Replaces `path` with `bytes`: written to a new temporary file beside it, opened with
  /// `O_CREAT|O_EXCL|O_NOFOLLOW` and `mode`, fsynced, renamed over `path`; then the folder is
  /// fsynced so the rename itself survives a crash.
  public static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600) throws(Failure)
  {
    let folder = directory(of: path)
    let temporary =
      "\(folder)/.\(baseName(of: path)).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
    guard fd >= 0 else { throw systemFailure(path, "cannot create \(temporary)") }
    var written = 0
    while written < bytes.count {
      let n = bytes.withUnsafeBytes { raw in
        Glibc.write(fd, raw.baseAddress! + written, raw.count - written)
      }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else {
        let failure = systemFailure(path, "cannot write \(temporary)")
        close(fd)
        unlink(temporary)
        throw failure
      }
      written += n
    }
    guard fsync(fd) == 0 else {
      let failure = systemFailure(path, "cannot flush \(temporary) to disk")
      close(fd)
      unlink(temporary)
      throw failure
    }
    close(fd)
    guard rename(temporary, path) == 0 else {
      let failure = systemFailure(path, "cannot move \(temporary) to \(path)")
      unlink(temporary)
      throw failure
    }
    try syncDirectory(folder)
  }

  /// The whole file, or nil when it does not exist. Refuses a symbolic link and a file larger
  /// than `maximumBytes` (it is not ours). With `ownerOnly`, also refuses — with a fix-it
  /// message, as ssh does for keys — a file others may read or write, or one owned by another
  /// user.
  public static func read(_ path: String, maximumBytes: Int = 16 << 20, ownerOnly: Bool)
    throws(Failure) -> [UInt8]?
  {
    let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else {
      if errno == ENOENT { return nil }
      if errno == ELOOP {
        throw Failure(
          path: path, message: "\(path) is a symbolic link; replace it with a regular file")
      }
      throw systemFailure(path, "cannot open \(path)")
    }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw systemFailure(path, "cannot inspect \(path)") }
    if ownerOnly {
      let permissions = info.st_mode & 0o777
      guard permissions & 0o077 == 0 else {
        throw Failure(
          path: path,
          message:
            "permissions \(octal(permissions)) for '\(path)' are too open: it holds a secret; run chmod 600 \(path)"
        )
      }
      guard info.st_uid == geteuid() else {
        throw Failure(
          path: path,
          message: "\(path) belongs to another user; it must belong to the user running susi")
      }
    }
    guard Int(info.st_size) <= maximumBytes else {
      throw Failure(path: path, message: "\(path) is larger than \(maximumBytes) bytes")
    }
    var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
    var filled = 0
    while filled < bytes.count {
      let n = bytes.withUnsafeMutableBytes { raw in
        Glibc.read(fd, raw.baseAddress! + filled, raw.count - filled)
      }
      if n < 0 && errno == EINTR { continue }
      guard n >= 0 else { throw systemFailure(path, "cannot read \(path)") }
      if n == 0 { break }
      filled += n
    }
    return Array(bytes.prefix(filled))
  }

  /// Creates `path` and any missing parents with `mode` (folders that exist are left alone);
  /// fails when something that is not a folder is in the way.
  public static func makeDirectory(_ path: String, mode: mode_t = 0o700) throws(Failure) {
    var prefix = path.hasPrefix("/") ? "" : "."
    for component in path.split(separator: "/") {
      prefix += "/" + component
      if mkdir(prefix, mode) != 0 && errno != EEXIST {
        throw systemFailure(path, "cannot create the folder \(prefix)")
      }
    }
    var info = stat()
    guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
      throw Failure(
        path: path, message: "\(path) is not a directory; move it away or choose another folder")
    }
  }

  /// Removes `path` (nothing to do when it is gone) and makes the removal durable.
  public static func remove(_ path: String) throws(Failure) {
    guard unlink(path) == 0 || errno == ENOENT else {
      throw systemFailure(path, "cannot remove \(path)")
    }
    try syncDirectory(directory(of: path))
  }

  /// Makes a folder's entries (a rename, an unlink) durable.
  public static func syncDirectory(_ path: String) throws(Failure) {
    let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { throw systemFailure(path, "cannot open the folder \(path)") }
    defer { close(fd) }
    guard fsync(fd) == 0 else {
      throw systemFailure(path, "cannot flush the folder \(path) to disk")
    }
  }

  /// The folder part of `path` (`.` for a bare name).
  public static func directory(of path: String) -> String {
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

  /// A failure naming what failed and the system's reason (from `errno`).
  static func systemFailure(_ path: String, _ what: String) -> Failure {
    Failure(path: path, message: "\(what): \(String(cString: strerror(errno)))")
  }
}
