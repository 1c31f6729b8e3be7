import Foundation
import Glibc
import SusiJSON

// The chat memory on disk: `memory.jsonl` in the state directory, one cognition a line
// (`{"client":…,"date":…,"envelope":{…}}`), appended under the state files' lock so that every
// process serving from the directory sees the others' chats. When the file has grown past twice
// its size after the last compaction (and at least `memoryCompactionBytes`), it is rewritten
// with only what `ConversationMemory` keeps, so it stays bounded.
extension StateStore {
  /// The smallest size at which the memory file is compacted.
  static let memoryCompactionBytes = 4 << 20

  /// Where one appended cognition landed in the memory file.
  struct MemoryAppend {
    /// The file written (a compaction replaces it).
    var inode: UInt64
    /// The file's size right after the append: where the cognition's line ends.
    var end: Int
    /// The line's length in bytes, newline included.
    var length: Int
  }

  /// Appends one cognition to the memory file; `remember` (or `catchUpMemory`, as for the
  /// cognitions of other processes) puts it in `state.memory`. Holds the lock shared, so appends
  /// (one `write` each, to a file opened for appending) go side by side and only a compaction
  /// waits for them. Nil when it could not be saved.
  func append(_ cognition: ConversationMemory.Cognition, for client: String) -> MemoryAppend? {
    let line = Self.line(cognition, for: client)
    guard let lock = try? lock(exclusive: false) else { return nil }
    defer { close(lock) }
    let fd = open(memoryPath, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    // A short write leaves a partial line, which readers skip once a newline follows it.
    guard line.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == line.count else {
      return nil
    }
    var info = stat()
    guard fstat(fd, &info) == 0 else { return nil }
    return MemoryAppend(inode: UInt64(info.st_ino), end: Int(info.st_size), length: line.count)
  }

  /// Puts a cognition this process appended (`appended`) in `state.memory` without reading
  /// it back, when it is the next line `state` has not read; otherwise catches up
  /// (`catchUpMemory`), which reads it with whatever others appended before it.
  func remember(
    _ cognition: ConversationMemory.Cognition, for client: String, appended: MemoryAppend,
    _ state: inout ServerState
  ) {
    guard appended.inode == state.memoryPosition.inode,
      appended.end - appended.length == state.memoryPosition.offset
    else {
      catchUpMemory(&state)
      return
    }
    state.memory.remember(cognition, for: client)
    state.memoryPosition.offset = appended.end
  }

  /// Whether a memory file of `size` bytes is due for compaction.
  func memoryNeedsCompaction(size: Int, _ state: ServerState) -> Bool {
    size > max(Self.memoryCompactionBytes, 2 * state.memoryPosition.compactedSize)
  }

  /// Rewrites the memory file with what `state.memory` keeps, holding the lock exclusively (no
  /// append can fall between reading the file and replacing it).
  func compactMemory(_ state: inout ServerState) {
    guard let lock = try? lock() else { return }
    defer { close(lock) }
    catchUpMemory(&state)
    var text: [UInt8] = []
    for (client, cognition) in state.memory.all { text += Self.line(cognition, for: client) }
    do throws(FileError) {
      try AtomicFile.write(text, to: memoryFile)
    } catch {
      return
    }
    var info = stat()
    guard stat(memoryPath, &info) == 0 else { return }
    state.memoryPosition = MemoryPosition(
      inode: UInt64(info.st_ino), offset: Int(info.st_size), compactedSize: Int(info.st_size))
  }

  private static func line(_ cognition: ConversationMemory.Cognition, for client: String)
    -> [UInt8]
  {
    JSON.object([
      "client": .string(client), "date": .string(SusiDateFormat.millis(cognition.date)),
      "envelope": .object(cognition.envelope),
    ]).compactBytes + [0x0A]
  }

  /// Adds to `state.memory` what was appended to the memory file since it was last read (all of
  /// it after a compaction replaced the file).
  func catchUpMemory(_ state: inout ServerState) {
    // Nothing new (the common case): one look at the file, without opening it.
    var seen = stat()
    guard stat(memoryPath, &seen) == 0 else { return }
    if UInt64(seen.st_ino) == state.memoryPosition.inode
      && Int(seen.st_size) == state.memoryPosition.offset
    {
      return
    }
    let fd = open(memoryPath, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { return }
    if UInt64(info.st_ino) != state.memoryPosition.inode {
      state.memory = ConversationMemory()
      state.memoryPosition = MemoryPosition(inode: UInt64(info.st_ino))
    }
    let size = Int(info.st_size)
    var offset = state.memoryPosition.offset
    guard size > offset else { return }
    var bytes = [UInt8](repeating: 0, count: size - offset)
    let count = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(offset)) }
    guard count > 0 else { return }
    var start = 0
    while let newline = bytes[start..<count].firstIndex(of: 0x0A) {
      if let (client, cognition) = Self.cognition(in: bytes[start..<newline]) {
        state.memory.remember(cognition, for: client)
      }
      start = newline + 1
    }
    offset += start
    state.memoryPosition.offset = offset
  }

  private static func cognition(in line: ArraySlice<UInt8>) -> (
    String, ConversationMemory.Cognition
  )? {
    guard let object = (try? JSONParser.parse(Array(line)))?.object,
      let client = object["client"]?.string,
      let date = object["date"]?.string.flatMap(SusiDateFormat.parseMillis),
      let envelope = object["envelope"]?.object
    else { return nil }
    return (client, ConversationMemory.Cognition(date: date, envelope: envelope))
  }
}

/// How far this process has read the memory file.
struct MemoryPosition: Sendable {
  /// The file read (a compaction replaces it).
  var inode: UInt64 = 0
  var offset = 0
  /// The file's size right after the last compaction this process did.
  var compactedSize = 0
}
