import Glibc

// Opening: create or open the file, then scan it and cut off a torn tail.
extension EventLogWriter {
  /// Opens the log write-only in append mode, creating it with mode 0600 (never wider, not even
  /// for a moment) when it does not exist.
  static func openForAppending(_ path: String) throws(EventLogError) -> (fd: Int32, created: Bool) {
    var lastFailure = SystemCalls.Failure(errno: ENOENT, call: "open")
    // Retried because the file can appear or vanish between the two opens.
    for _ in 0..<3 {
      do {
        let fd = try SystemCalls.openRegularFile(
          path, flags: O_WRONLY | O_APPEND | O_CREAT | O_EXCL, mode: 0o600)
        return (fd, true)
      } catch  where error.errno == EEXIST {
        lastFailure = error
      } catch {
        throw fileError(path, error)
      }
      do {
        return (try SystemCalls.openRegularFile(path, flags: O_WRONLY | O_APPEND), false)
      } catch  where error.errno == ENOENT {
        lastFailure = error
      } catch {
        throw fileError(path, error)
      }
    }
    throw fileError(path, lastFailure)
  }

  static func syncDirectory(of path: String) throws(EventLogError) {
    do {
      try SystemCalls.syncDirectory(containing: path)
    } catch {
      throw fileError(path, error)
    }
  }

  /// Scans the whole log once (the writer holds the lock, so it cannot change meanwhile) and
  /// cuts off a torn tail. Corruption anywhere else is thrown, and nothing is changed.
  static func recover(fd: Int32, path: String, created: Bool, options: Options)
    throws(EventLogError) -> EventLogRecovery
  {
    let (reader, resumedAfter) = try openScanner(writerFD: fd, path: path, options: options)
    while try reader.nextView() != nil {}
    reader.close()
    guard var tornTail = reader.tornTail else {
      return EventLogRecovery(
        created: created, recordCount: reader.recordCount, lastSeq: reader.lastSeq,
        byteLength: reader.validLength, tornTail: nil, resumedAfter: resumedAfter)
    }
    do {
      try SystemCalls.truncate(fd, to: reader.validLength)
      try SystemCalls.fullSync(fd)
    } catch {
      throw fileError(path, error, context: "cutting off an incomplete final record")
    }
    tornTail.removed = true
    return EventLogRecovery(
      created: created, recordCount: reader.recordCount, lastSeq: reader.lastSeq,
      byteLength: reader.validLength, tornTail: tornTail, resumedAfter: resumedAfter)
  }

  /// A reader on the same file as the (write-only) descriptor `writerFD`: after
  /// `options.resumeAfter` when the log holds that checkpoint (returned too), else from the start.
  private static func openScanner(writerFD: Int32, path: String, options: Options)
    throws(EventLogError) -> (EventLogReader, EventLogCheckpoint?)
  {
    do {
      let readFD = try SystemCalls.openRegularFile(path, flags: O_RDONLY)
      var checkpoint = options.resumeAfter
      if let resume = checkpoint {
        if resume.mismatch(fd: readFD) == nil {
          lseek(readFD, off_t(resume.offset), SEEK_SET)
        } else {
          checkpoint = nil
        }
      }
      let reader = EventLogReader(
        fd: readFD, path: path, firstSeq: options.firstSeq,
        maximumLineLength: options.maximumLineLength,
        bufferSize: EventLogReader.defaultBufferSize, after: checkpoint)
      guard try SystemCalls.fileIdentity(readFD) == SystemCalls.fileIdentity(writerFD) else {
        throw EventLogError(
          code: .fileError, path: path,
          message: "the file was replaced while it was being opened; try again")
      }
      return (reader, checkpoint)
    } catch let error as SystemCalls.Failure {
      throw fileError(path, error)
    } catch let error as EventLogError {
      throw error
    } catch {
      throw EventLogError(code: .fileError, path: path, message: "\(error)")
    }
  }

  static func fileError(_ path: String, _ failure: SystemCalls.Failure, context: String? = nil)
    -> EventLogError
  {
    let message = context.map { "\(failure.text) while \($0)" } ?? failure.text
    return EventLogError(code: .fileError, path: path, errno: failure.errno, message: message)
  }
}
