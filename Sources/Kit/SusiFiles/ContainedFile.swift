public import Foundation
import Glibc

/// The one rule for every file path the server builds from a request: a file is served only
/// when each request-supplied segment is a plain name and the resolved file lies inside the
/// folder it belongs to.
///
/// A segment is refused when it is empty, `.` or `..`, hidden (starts with `.`), holds a path
/// separator (`/` or `\`), a NUL, or a `%` (the request was already percent-decoded once, so a
/// `%` left over is a second layer of encoding). The joined path is then resolved with
/// `realpath` (symbolic links included) and must still lie under the resolved folder.
public enum ContainedFile {
  /// The regular file at `folder/segments…`, or nil when any segment is refused, the file does
  /// not exist, or it resolves outside `folder`.
  public static func resolve(_ segments: [String], under folder: URL) -> URL? {
    guard !segments.isEmpty, segments.allSatisfy(isPlainName) else { return nil }
    guard let root = realPath(folder.path) else { return nil }
    let candidate = segments.reduce(root) { $0 + "/" + $1 }
    guard let resolved = realPath(candidate), resolved.hasPrefix(root + "/") else { return nil }
    var info = stat()
    guard stat(resolved, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
    return URL(fileURLWithPath: resolved)
  }

  /// Splits a request value such as `images/coin.png` into segments for `resolve`; an empty
  /// segment (`a//b`, a leading or trailing `/`) stays in and is refused there.
  public static func segments(_ relative: String) -> [String] {
    relative.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
  }

  /// Whether `segment` is a name the rule accepts (see the type).
  public static func isPlainName(_ segment: String) -> Bool {
    !segment.isEmpty && !segment.hasPrefix(".")
      && !segment.contains { $0 == "/" || $0 == "\\" || $0 == "\0" || $0 == "%" }
  }

  private static func realPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }
}
