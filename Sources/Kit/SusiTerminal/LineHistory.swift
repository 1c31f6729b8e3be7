import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The lines typed before, oldest first, kept in a private file (mode 0600) so the up arrow finds
/// them after a restart. Only what the caller adds is kept (never passwords: the text frontend
/// adds chat lines only). At most `limit` lines are kept.
public final class LineHistory: Sendable {
  let path: String
  let limit: Int
  private let lines: Mutex<[String]>

  /// Loads the history at `path` (none yet is an empty history; an unreadable file too, so a
  /// broken history never keeps the chat from starting).
  public init(path: String, limit: Int = 1000) {
    self.path = path
    self.limit = max(1, limit)
    var loaded: [String] = []
    if let data = FileManager.default.contents(atPath: path) {
      loaded = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }
    lines = Mutex(Array(loaded.suffix(self.limit)))
    // Appending lets the file grow past the limit; cut it back at start.
    if loaded.count > self.limit { rewrite() }
  }

  /// The lines, oldest first.
  var entries: [String] { lines.withLock { $0 } }

  /// Adds a typed line, unless it is blank or the same as the line before it.
  public func add(_ line: String) {
    let line = line.replacingOccurrences(of: "\n", with: " ")
    guard !line.unicodeScalars.allSatisfy(\.properties.isWhitespace) else { return }
    let added = lines.withLock { lines -> Bool in
      guard lines.last != line else { return false }
      lines.append(line)
      if lines.count > limit { lines.removeFirst(lines.count - limit) }
      return true
    }
    guard added else { return }
    let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { return }
    defer { close(descriptor) }
    // A file made by someone else's umask or copied in is made private again.
    _ = fchmod(descriptor, 0o600)
    writeAll(descriptor, Array((line + "\n").utf8))
  }

  /// Writes the kept lines to a new private file and puts it in place of the old one.
  private func rewrite() {
    let temporary = path + ".new"
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { return }
    _ = fchmod(descriptor, 0o600)
    let text = entries.map { $0 + "\n" }.joined()
    writeAll(descriptor, Array(text.utf8))
    let synced = fsync(descriptor) == 0
    close(descriptor)
    if synced { _ = rename(temporary, path) } else { _ = unlink(temporary) }
  }

  private func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) {
    var offset = 0
    while offset < bytes.count {
      let written = bytes[offset...].withUnsafeBytes {
        write(descriptor, $0.baseAddress, $0.count)
      }
      if written < 0 && errno == EINTR { continue }
      guard written > 0 else { return }
      offset += written
    }
  }
}
