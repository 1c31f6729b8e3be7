import SusiCore
import SusiFiles

#if canImport(Glibc)
  import Glibc
#endif

/// The runner's private files (credentials, the image cache) through `PrivateFile`, with its
/// failures as the runner's `io` failures.
enum SecureFile {
  static func makeDirectory(_ path: String, mode: mode_t = 0o700) throws(RunnerFailure) {
    do { try PrivateFile.makeDirectory(path, mode: mode) } catch {
      throw RunnerFailure(.io, error.message)
    }
  }

  static func writeAtomically(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600)
    throws(RunnerFailure)
  {
    do { try PrivateFile.write(bytes, to: path, mode: mode) } catch {
      throw RunnerFailure(.io, error.message)
    }
  }

  /// Refuses, with a fix-it message, a file others may read or write or one owned by another
  /// user (it holds a secret).
  static func readPrivate(_ path: String, maximumBytes: Int) throws(RunnerFailure) -> [UInt8]? {
    do {
      return try PrivateFile.read(path, maximumBytes: maximumBytes, ownerOnly: true)
    } catch {
      throw RunnerFailure(.io, error.message)
    }
  }

  static func remove(_ path: String) throws(RunnerFailure) {
    do { try PrivateFile.remove(path) } catch { throw RunnerFailure(.io, error.message) }
  }
}
