import Foundation
import Glibc

/// A file-system failure with the path and the system's reason.
public struct FileError: Error, Equatable, Sendable, CustomStringConvertible {
  public var path: String
  public var reason: String
  public var description: String { "\(path): \(reason)" }

  init(path: String, operation: String, errno code: Int32) {
    self.path = path
    reason = "\(operation) failed: \(String(cString: strerror(code)))"
  }

  init(path: String, reason: String) {
    self.path = path
    self.reason = reason
  }
}

/// Replaces files so that a reader (or a crash) sees either the old or the new content, never
/// a mix, and so that secrets never exist with a mode wider than 0600.
///
/// Sequence: open a fresh temporary file in the same directory with
/// `O_CREAT|O_EXCL|O_NOFOLLOW` and mode 0600, write, `fsync`, `rename` over the target, then
/// `fsync` the directory so the rename itself is durable.
enum AtomicFile {
  static func write(_ bytes: [UInt8], to url: URL) throws(FileError) {
    let directory = url.deletingLastPathComponent().path
    let target = url.path
    let temporary =
      "\(directory)/.\(url.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw FileError(path: temporary, operation: "open", errno: errno) }
    var written = 0
    while written < bytes.count {
      let result = bytes.withUnsafeBytes { buffer -> Int in
        guard let base = buffer.baseAddress else { return 0 }
        return Glibc.write(fd, base + written, buffer.count - written)
      }
      if result < 0 {
        if errno == EINTR { continue }
        let code = errno
        close(fd)
        unlink(temporary)
        throw FileError(path: temporary, operation: "write", errno: code)
      }
      written += result
    }
    if fsync(fd) != 0 {
      let code = errno
      close(fd)
      unlink(temporary)
      throw FileError(path: temporary, operation: "fsync", errno: code)
    }
    close(fd)
    if rename(temporary, target) != 0 {
      let code = errno
      unlink(temporary)
      throw FileError(path: target, operation: "rename", errno: code)
    }
    try syncDirectory(directory)
  }

  /// Makes a directory's entries (a rename, a new file) durable.
  static func syncDirectory(_ path: String) throws(FileError) {
    let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { throw FileError(path: path, operation: "open directory", errno: errno) }
    defer { close(fd) }
    if fsync(fd) != 0 { throw FileError(path: path, operation: "fsync directory", errno: errno) }
  }

  /// Creates `url` with mode 0700 (from the start, not changed afterwards) and its missing
  /// parents; an existing folder is left as it is.
  static func makeDirectory(_ url: URL) throws(FileError) {
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) {
      guard isDirectory.boolValue else {
        throw FileError(path: url.path, reason: "exists and is not a directory")
      }
      return
    }
    do {
      try FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    } catch {
      throw FileError(
        path: url.deletingLastPathComponent().path,
        reason: "cannot create directory: \(error.localizedDescription)")
    }
    if mkdir(url.path, 0o700) != 0 && errno != EEXIST {
      throw FileError(path: url.path, operation: "mkdir", errno: errno)
    }
  }

  /// The whole file, or nil when it does not exist.
  static func read(_ url: URL, limit: Int = 64 << 20) throws(FileError) -> [UInt8]? {
    let fd = open(url.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
    if fd < 0 {
      if errno == ENOENT { return nil }
      throw FileError(path: url.path, operation: "open", errno: errno)
    }
    defer { close(fd) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        throw FileError(path: url.path, operation: "read", errno: errno)
      }
      if count == 0 { break }
      out.append(contentsOf: chunk[0..<count])
      if out.count > limit {
        throw FileError(path: url.path, reason: "file is larger than \(limit) bytes")
      }
    }
    return out
  }
}
