#if canImport(Glibc)
  import Glibc
#endif

/// Small files that hold secrets or cursors beside the log: read whole, replaced atomically,
/// readable by their owner only.
///
/// A write goes to a fresh temporary file created 0600 (never wider, not even for a moment),
/// is forced to disk, renamed over the old file, and the directory is forced to disk too, so a
/// crash leaves either the old or the new content.
public enum PrivateFile {
  /// Why a file could not be read or written.
  public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file concerned.
    public var path: String
    /// What went wrong, and what to do about it.
    public var message: String
    /// A failure concerning `path`.
    public init(path: String, message: String) {
      self.path = path
      self.message = message
    }
    public var description: String { "\(path): \(message)" }
  }

  /// The file's bytes, or nil when it does not exist.
  ///
  /// - Parameters:
  ///   - maximumBytes: longer files are refused (they are not ours).
  ///   - ownerOnly: refuse a file that others may read or write, as ssh does with keys.
  public static func read(_ path: String, maximumBytes: Int = 16 << 20, ownerOnly: Bool)
    throws(Failure)
    -> [UInt8]?
  {
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
    if fd < 0 {
      if errno == ENOENT { return nil }
      throw Failure(path: path, message: "cannot open: \(errorText())")
    }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else {
      throw Failure(path: path, message: "cannot stat: \(errorText())")
    }
    if ownerOnly && info.st_mode & 0o077 != 0 {
      let mode = String(info.st_mode & 0o777, radix: 8)
      throw Failure(
        path: path,
        message: "permissions 0\(mode) are too open; it holds secrets. Run: chmod 600 \(path)")
    }
    if ownerOnly && info.st_uid != getuid() {
      throw Failure(
        path: path, message: "belongs to another user; it must be owned by the user running susi")
    }
    guard Int(info.st_size) <= maximumBytes else {
      throw Failure(
        path: path, message: "is \(info.st_size) bytes, more than the \(maximumBytes) allowed")
    }
    var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
    var offset = 0
    while offset < bytes.count {
      let n = bytes.withUnsafeMutableBytes {
        pread(fd, $0.baseAddress! + offset, $0.count - offset, off_t(offset))
      }
      if n < 0 {
        if errno == EINTR { continue }
        throw Failure(path: path, message: "cannot read: \(errorText())")
      }
      if n == 0 { break }
      offset += n
    }
    return Array(bytes.prefix(offset))
  }

  /// Replaces the file's content with `bytes`, atomically, mode 0600.
  public static func write(_ path: String, _ bytes: [UInt8]) throws(Failure) {
    let directory = directoryOf(path)
    let temporary = "\(path).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard fd >= 0 else {
      throw Failure(path: path, message: "cannot create \(temporary): \(errorText())")
    }
    var offset = 0
    var failure: Failure?
    while offset < bytes.count {
      let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
      if n < 0 {
        if errno == EINTR { continue }
        failure = Failure(path: path, message: "cannot write: \(errorText())")
        break
      }
      offset += n
    }
    if failure == nil && fsync(fd) != 0 {
      failure = Failure(path: path, message: "cannot sync: \(errorText())")
    }
    close(fd)
    if failure == nil && rename(temporary, path) != 0 {
      failure = Failure(path: path, message: "cannot replace: \(errorText())")
    }
    if let failure {
      unlink(temporary)
      throw failure
    }
    let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if directoryFD >= 0 {
      _ = fsync(directoryFD)
      close(directoryFD)
    }
  }

  static func directoryOf(_ path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    let directory = String(path[..<slash])
    return directory.isEmpty ? "/" : directory
  }

  private static func errorText() -> String { String(cString: strerror(errno)) }
}
