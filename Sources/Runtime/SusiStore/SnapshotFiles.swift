import Foundation
import Glibc
import SusiEventLog

/// The snapshot files of one log, kept beside it: `LOG.snapshot.SEQ` (SEQ zero-padded to 12
/// digits so names sort by seq). Each is written whole to `LOG.snapshot.SEQ.PID.tmp` (PID: the
/// writing process, as several processes can share a log), forced to disk,
/// renamed into place and the folder forced to disk, so a crash leaves the old snapshot or the
/// new one, never half of one. The newest two are kept.
public struct SnapshotFiles: Sendable {
  /// How many snapshots are kept; older ones are deleted after a new one is in place.
  public static let kept = 2
  /// Set to a path in the environment of a test: after the next snapshot's temporary file is
  /// written and forced to disk, that path is created and the writing thread stops for good
  /// (before the rename), so the test can kill the process at exactly that point.
  public static let holdBeforeRenameVariable = "SUSI_TEST_SNAPSHOT_HOLD"

  public let logPath: String
  let holdMarker: String?

  public init(logPath: String, holdMarker: String? = nil) {
    self.logPath = logPath
    self.holdMarker = holdMarker
  }

  var folder: String {
    let folder = (logPath as NSString).deletingLastPathComponent
    return folder.isEmpty ? "." : folder
  }
  var prefix: String { (logPath as NSString).lastPathComponent + ".snapshot." }

  /// The path of the snapshot covering `seq`.
  public func path(forSeq seq: Int) -> String {
    let digits = String(seq)
    let padded = String(repeating: "0", count: max(0, 12 - digits.count)) + digits
    return folder + "/" + prefix + padded
  }

  /// The snapshot files beside the log, newest (highest seq) first.
  public func all() -> [(seq: Int, path: String)] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    return names.compactMap { name -> (seq: Int, path: String)? in
      guard name.hasPrefix(prefix), let seq = Int(name.dropFirst(prefix.count)) else { return nil }
      return (seq, folder + "/" + name)
    }.sorted { $0.seq > $1.seq }
  }

  /// Writes `snapshot` atomically (see the type), then deletes all but the newest `kept` and any
  /// temporary file a crash left behind. Nothing is written when the snapshot does not read back
  /// as the book it was made from (`Snapshot.checkedEncoding`).
  public func write(_ snapshot: Snapshot) throws(Failure) {
    let final = path(forSeq: snapshot.checkpoint.seq)
    let bytes: [UInt8]
    do {
      bytes = try snapshot.checkedEncoding().bytes
    } catch {
      throw Failure(path: final, what: "write", problem: error.description)
    }
    let temporary = final + ".\(getpid()).tmp"
    unlink(temporary)
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw Failure(path: temporary, what: "create") }
    var done = 0
    var failed = false
    bytes.withUnsafeBytes { buffer in
      while done < buffer.count {
        let n = Glibc.write(fd, buffer.baseAddress! + done, buffer.count - done)
        if n > 0 {
          done += n
        } else if n < 0 && errno == EINTR {
          continue
        } else {
          failed = true
          return
        }
      }
    }
    if failed || fsync(fd) != 0 {
      let failure = Failure(path: temporary, what: "write")
      close(fd)
      unlink(temporary)
      throw failure
    }
    close(fd)
    if let holdMarker {
      _ = FileManager.default.createFile(atPath: holdMarker, contents: Data())
      while true { pause() }
    }
    guard rename(temporary, final) == 0 else {
      let failure = Failure(path: final, what: "rename")
      unlink(temporary)
      throw failure
    }
    let directory = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if directory >= 0 {
      fsync(directory)
      close(directory)
    }
    prune()
  }

  /// Deletes every snapshot but the newest `kept`, and temporary files left by processes that
  /// are gone (another live process may be writing one right now).
  func prune() {
    for old in all().dropFirst(Self.kept) { unlink(old.path) }
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
      // `SEQ.PID.tmp`; older versions wrote `SEQ.tmp`.
      let parts = name.dropFirst(prefix.count).dropLast(4).split(separator: ".")
      if parts.count == 2, let pid = pid_t(parts[1]), pid != getpid(), kill(pid, 0) == 0 {
        continue
      }
      unlink(folder + "/" + name)
    }
  }

  /// The newest snapshot that reads back whole and matches the log, with one warning line for
  /// each newer one that did not (why it was ignored).
  public func newestValid() -> (snapshot: Snapshot?, warnings: [String]) {
    var warnings: [String] = []
    for file in all() {
      switch load(file.path) {
      case .success(let snapshot): return (snapshot, warnings)
      case .failure(let problem):
        warnings.append(
          "ignored the snapshot \(file.path): \(problem); the state is rebuilt from the log instead"
        )
      }
    }
    return (nil, warnings)
  }

  /// Reads the snapshot at `path` and checks it against the log.
  public func load(_ path: String) -> Result<Snapshot, Snapshot.Problem> {
    guard let data = FileManager.default.contents(atPath: path) else {
      return .failure(Snapshot.Problem(description: "it cannot be read"))
    }
    let snapshot: Snapshot
    do {
      snapshot = try Snapshot(decoding: Array(data))
    } catch {
      return .failure(error)
    }
    if let mismatch = snapshot.checkpoint.mismatch(inLogAt: logPath) {
      return .failure(Snapshot.Problem(description: "it does not match the log: \(mismatch)"))
    }
    return .success(snapshot)
  }

  /// A snapshot file that could not be written.
  public struct Failure: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var what: String
    public var errno: Int32 = Glibc.errno
    /// Why, when it is not a system call that failed.
    public var problem: String?

    public var description: String {
      "cannot \(what) \(path): \(problem ?? String(cString: strerror(errno)))"
    }
  }
}
