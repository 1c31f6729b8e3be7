#if canImport(Glibc)
  import Glibc
#endif

/// Splits a byte stream into lines at `\n`, holding at most `limit` bytes of an unfinished line:
/// a longer line is handed out as its first `limit` bytes as soon as it is known to be longer,
/// and the rest of it is counted and skipped, never kept. Pure: the caller reads the bytes and
/// feeds them in, in any pieces; a `\r` before the `\n` is left to the caller.
public struct LineSplitter: Sendable {
  /// What splitting gave.
  public enum Piece: Equatable, Sendable {
    /// A whole line of at most `limit` bytes, without its `\n`.
    case line(ArraySlice<UInt8>)
    /// The first `limit` bytes of a longer line; its other bytes are skipped.
    case longLineStart(ArraySlice<UInt8>)
    /// The end of a longer line: its whole length (without the `\n`) and its last byte.
    case longLineEnd(length: Int, lastByte: UInt8)
  }

  /// The most bytes of one line that are kept.
  public let limit: Int
  /// The start of a line that has not ended yet (at most `limit` bytes).
  private var partial: [UInt8] = []
  /// The length so far and the last byte of a longer line being skipped; nil when not skipping.
  private var skipping: (length: Int, lastByte: UInt8)?

  public init(limit: Int) {
    self.limit = max(1, limit)
  }

  /// The next piece `bytes` finish, with the bytes it used removed from the front of `bytes`;
  /// nil once `bytes` is used up without finishing one (what they hold of a line is kept for
  /// the next call). A line found whole in `bytes` is a slice of them, not a copy.
  public mutating func next(from bytes: inout ArraySlice<UInt8>) -> Piece? {
    guard !bytes.isEmpty else { return nil }
    let newline = Self.firstNewline(in: bytes)
    let segment = bytes[..<(newline ?? bytes.endIndex)]
    if let skipped = skipping {
      let lastByte = segment.last ?? skipped.lastByte
      let length = skipped.length + segment.count
      guard let newline else {
        skipping = (length, lastByte)
        bytes = bytes[bytes.endIndex...]
        return nil
      }
      skipping = nil
      bytes = bytes[(newline + 1)...]
      return .longLineEnd(length: length, lastByte: lastByte)
    }
    if partial.count + segment.count > limit {
      let taken = segment.prefix(limit - partial.count)
      bytes = bytes[taken.endIndex...]
      let start = partial.isEmpty ? taken : (partial + taken)[...]
      partial = []
      skipping = (limit, start.last ?? 0)
      return .longLineStart(start)
    }
    guard let newline else {
      partial.append(contentsOf: segment)
      bytes = bytes[bytes.endIndex...]
      return nil
    }
    bytes = bytes[(newline + 1)...]
    if partial.isEmpty { return .line(segment) }
    let line = partial + segment
    partial = []
    return .line(line[...])
  }

  /// The end of the stream: the last line when it had no `\n`, else nil.
  public mutating func finish() -> Piece? {
    if let skipped = skipping {
      skipping = nil
      return .longLineEnd(length: skipped.length, lastByte: skipped.lastByte)
    }
    guard !partial.isEmpty else { return nil }
    defer { partial = [] }
    return .line(partial[...])
  }

  /// The most bytes this splitter holds on to between calls (for memory checks).
  public var retainedBytes: Int { partial.capacity }

  /// Takes back the kept start of an unfinished line (for a reader that wants the raw bytes).
  mutating func takeUnfinished() -> [UInt8] {
    defer { partial = [] }
    return partial
  }

  /// The index of the first `\n` in `bytes` (memchr: lines can be long).
  private static func firstNewline(in bytes: ArraySlice<UInt8>) -> Int? {
    bytes.withUnsafeBytes { raw -> Int? in
      guard let base = raw.baseAddress, let found = memchr(base, 0x0A, raw.count) else {
        return nil
      }
      return bytes.startIndex + base.distance(to: UnsafeRawPointer(found))
    }
  }
}
