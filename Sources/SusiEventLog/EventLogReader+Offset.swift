import Glibc

extension EventLogReader {
  /// Opens `path` for reading from the record that starts at byte `offset`, which is line
  /// `line` of the file and carries seq `seq`: how a reader that remembered where a record was
  /// goes back to it without reading the lines before it.
  public convenience init(path: String, offset: Int, line: Int, seq: Int) throws(EventLogError) {
    let fd: Int32
    do {
      fd = try SystemCalls.openRegularFile(path, flags: O_RDONLY)
    } catch {
      throw EventLogError(code: .fileError, path: path, errno: error.errno, message: error.text)
    }
    guard lseek(fd, off_t(offset), SEEK_SET) == off_t(offset) else {
      let code = errno
      Glibc.close(fd)
      throw EventLogError(
        code: .fileError, path: path, errno: code,
        message: "cannot seek to byte \(offset): \(String(cString: strerror(code)))")
    }
    self.init(
      fd: fd, path: path, firstSeq: seq, maximumLineLength: Self.defaultMaximumLineLength,
      bufferSize: 64 << 10, startOffset: offset)
    lineNumber = line - 1
  }
}
