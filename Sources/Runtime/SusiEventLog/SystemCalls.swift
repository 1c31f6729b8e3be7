import Glibc

/// Thin wrappers over the system calls the log uses: retry on EINTR, report errno.
enum SystemCalls {
  /// A failed system call: its errno and a readable account of it.
  struct Failure: Error {
    var errno: Int32
    var call: String

    var text: String { "\(call) failed: \(String(cString: strerror(errno))) (errno \(errno))" }
  }

  /// Opens `path`; refuses anything but a regular file (a FIFO or device would block or lie).
  static func openRegularFile(_ path: String, flags: Int32, mode: mode_t = 0) throws(Failure)
    -> Int32
  {
    var fd: Int32
    repeat { fd = open(path, flags | O_CLOEXEC | O_NONBLOCK, mode) } while fd < 0 && errno == EINTR
    guard fd >= 0 else { throw Failure(errno: errno, call: "open") }
    var info = stat()
    guard fstat(fd, &info) == 0 else {
      let failure = Failure(errno: errno, call: "fstat")
      close(fd)
      throw failure
    }
    guard info.st_mode & S_IFMT == S_IFREG else {
      close(fd)
      throw Failure(errno: EINVAL, call: "open (not a regular file)")
    }
    return fd
  }

  /// Reads up to `count` bytes; 0 means end of file.
  static func read(_ fd: Int32, into buffer: UnsafeMutableRawPointer, count: Int) throws(Failure)
    -> Int
  {
    while true {
      let n = Glibc.read(fd, buffer, count)
      if n >= 0 { return n }
      if errno != EINTR { throw Failure(errno: errno, call: "read") }
    }
  }

  /// Writes all of `bytes`, looping over partial writes.
  static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(Failure) {
    var done = 0
    while done < bytes.count {
      let n = Glibc.write(fd, bytes.baseAddress.unsafelyUnwrapped + done, bytes.count - done)
      if n > 0 {
        done += n
      } else if n == 0 {
        throw Failure(errno: EIO, call: "write (no progress)")
      } else if errno != EINTR {
        throw Failure(errno: errno, call: "write")
      }
    }
  }

  static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(Failure) {
    let result: Result<Void, Failure> = bytes.withUnsafeBytes { buffer in
      Result { () throws(Failure) in try writeAll(fd, buffer) }
    }
    try result.get()
  }

  static func dataSync(_ fd: Int32) throws(Failure) {
    while fdatasync(fd) != 0 {
      if errno != EINTR { throw Failure(errno: errno, call: "fdatasync") }
    }
  }

  static func fullSync(_ fd: Int32) throws(Failure) {
    while fsync(fd) != 0 {
      if errno != EINTR { throw Failure(errno: errno, call: "fsync") }
    }
  }

  static func truncate(_ fd: Int32, to length: Int) throws(Failure) {
    while ftruncate(fd, off_t(length)) != 0 {
      if errno != EINTR { throw Failure(errno: errno, call: "ftruncate") }
    }
  }

  static func fileIdentity(_ fd: Int32) throws(Failure) -> (device: UInt64, inode: UInt64) {
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw Failure(errno: errno, call: "fstat") }
    return (UInt64(info.st_dev), UInt64(info.st_ino))
  }

  /// Makes a newly created directory entry durable: fsync on the containing directory.
  static func syncDirectory(containing path: String) throws(Failure) {
    let directory: String
    if let slash = path.lastIndex(of: "/") {
      directory = slash == path.startIndex ? "/" : String(path[..<slash])
    } else {
      directory = "."
    }
    let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { throw Failure(errno: errno, call: "open directory") }
    defer { close(fd) }
    try fullSync(fd)
  }
}
