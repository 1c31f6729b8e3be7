import Foundation
import SusiTesting
import Testing

@testable import SusiTerminal

/// The chat's history file: private, bounded, only real lines.
@Suite struct LineHistoryTests {
  let folder = FileManagerTestFolder()

  func permissions(_ path: String) throws -> Int? {
    try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
  }

  @Test func linesAreKeptInAPrivateFileAndReadBack() throws {
    let path = folder.path + "/chat-history"
    let history = LineHistory(path: path)
    history.add("how are you")
    history.add("/skills Knowledge")
    #expect(try permissions(path) == 0o600)
    #expect(LineHistory(path: path).entries == ["how are you", "/skills Knowledge"])
  }

  @Test func aFileOthersCouldReadIsMadePrivate() throws {
    let path = try folder.write("chat-history", "old line\n")
    _ = chmod(path, 0o644)
    let history = LineHistory(path: path)
    #expect(history.entries == ["old line"])
    history.add("new line")
    #expect(try permissions(path) == 0o600)
  }

  @Test func blankLinesAndRepeatsAreNotAdded() {
    let history = LineHistory(path: folder.path + "/chat-history")
    history.add("")
    history.add("   ")
    history.add("hi")
    history.add("hi")
    history.add("ho")
    history.add("hi")
    #expect(history.entries == ["hi", "ho", "hi"])
  }

  @Test func onlyTheLastLinesAreKept() throws {
    let path = folder.path + "/chat-history"
    let history = LineHistory(path: path, limit: 3)
    for number in 1...5 { history.add("line \(number)") }
    #expect(history.entries == ["line 3", "line 4", "line 5"])
    let reloaded = LineHistory(path: path, limit: 3)
    #expect(reloaded.entries == ["line 3", "line 4", "line 5"])
    // The file was cut back when it was loaded, and is still private.
    let text = try String(contentsOfFile: path, encoding: .utf8)
    #expect(text == "line 3\nline 4\nline 5\n")
    #expect(try permissions(path) == 0o600)
  }

  @Test func anUnusableFileGivesAnEmptyHistoryAndNoCrash() {
    // A folder where the file should be: nothing can be read or written, the chat goes on.
    let history = LineHistory(path: folder.path)
    #expect(history.entries.isEmpty)
    history.add("still works in memory")
    #expect(history.entries == ["still works in memory"])
  }
}
