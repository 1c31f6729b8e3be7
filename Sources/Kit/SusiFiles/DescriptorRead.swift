public import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Reads from a pipe or file descriptor, going on when a signal interrupts a read (`EINTR`).
///
/// Foundation's `FileHandle.readDataToEndOfFile()`, `availableData` and `readData(ofLength:)`
/// stop the process on an interrupted read; a process that also runs child processes or catches
/// signals meets one sooner or later, so every read of a child's output goes through here.
public enum DescriptorRead {
  /// What one `read(2)` returns: up to `limit` bytes, as soon as any are there; empty at the end
  /// of the input or on a read error other than `EINTR`.
  public static func some(_ descriptor: Int32, limit: Int = 64 * 1024) -> [UInt8] {
    var buffer = [UInt8](repeating: 0, count: max(1, limit))
    while true {
      let count = buffer.withUnsafeMutableBytes { raw in
        read(descriptor, raw.baseAddress!, raw.count)
      }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return [] }
      buffer.removeSubrange(count...)
      return buffer
    }
  }

  /// Everything up to the end of the input (or the first read error other than `EINTR`).
  public static func toEnd(_ descriptor: Int32) -> [UInt8] {
    var bytes: [UInt8] = []
    while true {
      let piece = some(descriptor)
      if piece.isEmpty { return bytes }
      bytes += piece
    }
  }
}

extension FileHandle {
  /// Everything up to the end of the input, read through `DescriptorRead`.
  public func readToEndOfInput() -> Data { Data(DescriptorRead.toEnd(fileDescriptor)) }

  /// What one read returns (up to `limit` bytes); empty at the end of the input.
  public func readAvailable(limit: Int = 64 * 1024) -> Data {
    Data(DescriptorRead.some(fileDescriptor, limit: limit))
  }
}
