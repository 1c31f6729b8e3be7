#if canImport(Glibc)
  import Glibc
#endif

/// Where output lines go: stdout in the binary, memory in tests.
///
/// `write` is called from one dedicated thread, with whole lines only (each ending in `\n`);
/// it returns once the bytes are handed to the system, so nothing waits in a buffer.
public protocol JSONLinesOutput: Sendable {
  /// Writes all of `bytes`, or fails (the reader went away, the disk is full).
  func write(_ bytes: UnsafeRawBufferPointer) -> Result<Void, JSONLinesIOError>
}

/// Writes a file descriptor with write(2), unbuffered, until every byte is out.
public struct FileDescriptorOutput: JSONLinesOutput {
  public let descriptor: Int32

  public init(descriptor: Int32) { self.descriptor = descriptor }

  /// Standard output.
  public static let standardOutput = FileDescriptorOutput(descriptor: 1)

  public func write(_ bytes: UnsafeRawBufferPointer) -> Result<Void, JSONLinesIOError> {
    guard let base = bytes.baseAddress else { return .success(()) }
    var offset = 0
    while offset < bytes.count {
      let n = Glibc.write(descriptor, base + offset, bytes.count - offset)
      if n < 0 {
        if errno == EINTR { continue }
        return .failure(
          JSONLinesIOError("cannot write output: \(String(cString: strerror(errno)))"))
      }
      offset += n
    }
    return .success(())
  }
}
