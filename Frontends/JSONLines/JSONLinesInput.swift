#if canImport(Glibc)
  import Glibc
#endif

/// Where input bytes come from: stdin in the binary, anything in tests.
///
/// `read` is called from one dedicated thread and may block.
public protocol JSONLinesInput: Sendable {
  /// Reads up to `buffer.count` bytes into `buffer`. Returns how many (at least 1), 0 at the end
  /// of input, or a failure saying why reading stopped.
  func read(into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, JSONLinesIOError>
}

/// Why reading input or writing output failed.
public struct JSONLinesIOError: Error, Equatable, Sendable, CustomStringConvertible {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}

/// Reads a file descriptor with read(2), retrying when a signal interrupts the call.
public struct FileDescriptorInput: JSONLinesInput {
  public let descriptor: Int32

  public init(descriptor: Int32) { self.descriptor = descriptor }

  /// Standard input.
  public static let standardInput = FileDescriptorInput(descriptor: 0)

  public func read(into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, JSONLinesIOError> {
    while true {
      let n = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
      if n >= 0 { return .success(n) }
      if errno == EINTR { continue }
      return .failure(JSONLinesIOError("cannot read input: \(String(cString: strerror(errno)))"))
    }
  }
}
