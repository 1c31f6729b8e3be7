import Foundation
import SusiFiles

/// A file-system failure: a sentence naming the file and the reason.
public struct FileError: Error, Equatable, Sendable, CustomStringConvertible {
  public var path: String
  public var message: String
  public var description: String { message }

  init(_ failure: PrivateFile.Failure) {
    path = failure.path
    message = failure.message
  }
}

/// The server's files through `PrivateFile`: saved state is replaced atomically and created
/// 0600 (a reader or a crash sees the old content or the new, never a mix, and secrets never
/// exist with a wider mode); skill files and pages are read with a size limit.
enum AtomicFile {
  static func write(_ bytes: [UInt8], to url: URL) throws(FileError) {
    do { try PrivateFile.write(bytes, to: url.path) } catch { throw FileError(error) }
  }

  /// Creates `url` and its missing parents with mode 0700; an existing folder is left as it is.
  static func makeDirectory(_ url: URL) throws(FileError) {
    do { try PrivateFile.makeDirectory(url.path) } catch { throw FileError(error) }
  }

  /// The whole file, or nil when it does not exist.
  static func read(_ url: URL, limit: Int = 64 << 20) throws(FileError) -> [UInt8]? {
    do { return try PrivateFile.read(url.path, maximumBytes: limit, ownerOnly: false) } catch {
      throw FileError(error)
    }
  }
}
