import SusiTerminal

#if canImport(Glibc)
  import Glibc
#endif

/// Unbuffered writes to stdout and stderr: each call is written in full before it returns, so
/// lines reach a pipe at once and the two streams never interleave mid-line.
public enum StandardStream: Sendable {
  case output, error

  var descriptor: Int32 { self == .output ? 1 : 2 }

  /// Writes text for a person completely, as `terminalOutput`: no escape sequence but the
  /// styles susi writes itself reaches the terminal, whatever the text holds. Returns false
  /// when the reader has gone away (EPIPE) or another error stops the write.
  @discardableResult
  public func write(_ text: String) -> Bool {
    writeUnfiltered(text.terminalOutput)
  }

  /// Writes `text` exactly as given: only for escape sequences susi builds itself (inline
  /// images), never for text that holds anything from outside.
  @discardableResult
  public func writeUnfiltered(_ text: String) -> Bool {
    var text = text
    return text.withUTF8 { write(bytes: UnsafeRawBufferPointer($0)) }
  }

  /// Writes `bytes` completely and unchanged: for JSON, whose writer escapes every control
  /// character (see `write(_:)`).
  @discardableResult
  public func write(_ bytes: [UInt8]) -> Bool {
    bytes.withUnsafeBytes { write(bytes: $0) }
  }

  private func write(bytes: UnsafeRawBufferPointer) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let n = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
      if n < 0 {
        if errno == EINTR { continue }
        return false
      }
      offset += n
    }
    return true
  }

  /// Writes `text` and a newline in one write.
  @discardableResult
  public func line(_ text: String) -> Bool { write(text + "\n") }

  /// Whether this stream is a terminal.
  public var isTerminal: Bool { isatty(descriptor) == 1 }

  /// Stops SIGPIPE from killing the process, so a closed pipe shows up as a failed write.
  public static func ignoreBrokenPipes() { signal(SIGPIPE, SIG_IGN) }
}
