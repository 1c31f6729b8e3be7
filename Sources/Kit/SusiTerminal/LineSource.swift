/// What reading a line gave.
public enum LineRead: Equatable, Sendable {
  case line(String)
  /// The input ended.
  case end
  /// The read was cancelled (Ctrl-C at a prompt).
  case cancelled
}

/// Lines typed or piped in, one at a time. Lines are read only when asked for, so a password
/// read with echo off is never read ahead with echo on.
public protocol LineSource: Sendable {
  /// The next line without its line break.
  func nextLine() async -> LineRead
  /// Makes a pending `nextLine` return `.cancelled`.
  func cancel()
}
