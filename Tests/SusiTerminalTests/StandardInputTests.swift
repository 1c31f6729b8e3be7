import Glibc
import Synchronization
import Testing

@testable import SusiTerminal

@Suite struct StandardInputTests {
  /// A pipe whose write end the test feeds; the read end is what `StandardInput` reads.
  final class Pipe: Sendable {
    let read: Int32
    let write: Int32
    init() {
      var fds: [Int32] = [-1, -1]
      _ = pipe(&fds)
      read = fds[0]
      write = fds[1]
    }
    func send(_ text: String) {
      var bytes = Array(text.utf8)
      var offset = 0
      while offset < bytes.count {
        let n = bytes.withUnsafeMutableBytes {
          Glibc.write(write, $0.baseAddress! + offset, $0.count - offset)
        }
        guard n > 0 else { return }
        offset += n
      }
    }
    func closeWriting() { close(write) }
    deinit { close(read) }
  }

  @Test func bytesTheLineEditorGivesBackAreReadFirst() async {
    let pipe = Pipe()
    let input = StandardInput(descriptor: pipe.read)
    pipe.send("one\ntwo\n")
    #expect(await input.nextBytes() == .bytes(Array("one\ntwo\n".utf8)))
    // The editor used `one\n` and hands back what was typed after Enter.
    input.unread(Array("two\n".utf8))
    pipe.send("three\n")
    #expect(await input.nextLine() == .line("two"))
    #expect(await input.nextLine() == .line("three"))
    pipe.closeWriting()
    #expect(await input.nextBytes() == .end)
  }

  @Test func readsLinesAndTheUnterminatedRestThenEnds() async {
    let pipe = Pipe()
    let input = StandardInput(descriptor: pipe.read)
    pipe.send("first\nsecond\r\nthird")
    pipe.closeWriting()
    #expect(await input.nextLine() == .line("first"))
    #expect(await input.nextLine() == .line("second"))
    #expect(await input.nextLine() == .line("third"))
    #expect(await input.nextLine() == .end)
    #expect(await input.nextLine() == .end)
  }

  @Test func cutsOverlongLinesAndDropsTheirRest() async {
    let pipe = Pipe()
    let input = StandardInput(descriptor: pipe.read, maximumLineBytes: 1000)
    let writer = Task.detached {
      pipe.send(
        String(repeating: "x", count: 100_000) + "\n" + String(repeating: "y", count: 1500)
          + "\nnext\n")
      pipe.closeWriting()
    }
    guard case .line(let long) = await input.nextLine() else {
      Issue.record("expected a line")
      return
    }
    #expect(long == String(repeating: "x", count: 1000))
    #expect(await input.nextLine() == .line(String(repeating: "y", count: 1000)))
    #expect(await input.nextLine() == .line("next"))
    #expect(await input.nextLine() == .end)
    await writer.value
  }

  /// A line is cut first and loses a `\r` at its end after: a `\r` cut off never shows.
  @Test func aCarriageReturnIsDroppedAfterTheCut() async {
    let pipe = Pipe()
    let input = StandardInput(descriptor: pipe.read, maximumLineBytes: 3)
    pipe.send("ab\r\r\nabc\r\nx")
    pipe.closeWriting()
    #expect(await input.nextLine() == .line("ab"))
    #expect(await input.nextLine() == .line("abc"))
    #expect(await input.nextLine() == .line("x"))
    #expect(await input.nextLine() == .end)
  }

  @Test func cancelEndsAPendingRead() async {
    let pipe = Pipe()
    let input = StandardInput(descriptor: pipe.read)
    let reading = Task { await input.nextLine() }
    let done = Atomic<Bool>(false)
    let canceller = Task {
      while !done.load(ordering: .relaxed) {
        input.cancel()
        await Task.yield()
      }
    }
    #expect(await reading.value == .cancelled)
    done.store(true, ordering: .relaxed)
    await canceller.value
    pipe.send("after\n")
    #expect(await input.nextLine() == .line("after"))
  }

  @Test func invalidUTF8BecomesReplacementCharacters() async {
    let pipe = Pipe()
    let input = StandardInput(descriptor: pipe.read)
    var bytes: [UInt8] = [0x61, 0xFF, 0x62, 0x0A]
    _ = Glibc.write(pipe.write, &bytes, bytes.count)
    pipe.closeWriting()
    #expect(await input.nextLine() == .line("a\u{FFFD}b"))
  }
}
