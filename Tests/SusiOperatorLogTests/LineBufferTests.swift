import Dispatch
import Synchronization
import Testing

@testable import SusiOperatorLog

/// The buffer in front of standard error: lines leave whole and in order, from the writer
/// thread or a flush, and a line that does not fit is written at once after the others.
@Suite struct LineBufferTests {
  /// What a sink received, one element per write.
  final class Writes: Sendable {
    private let writes = Mutex<[String]>([])
    let written = DispatchSemaphore(value: 0)
    var all: [String] { writes.withLock { $0 } }
    func sink() -> @Sendable ([UInt8]) -> Void {
      { bytes in
        self.writes.withLock { $0.append(String(decoding: bytes, as: UTF8.self)) }
        self.written.signal()
      }
    }
  }

  @Test func aFlushWritesTheBufferedLinesInOrderWithOneWrite() {
    let writes = Writes()
    let buffer = LineBuffer(limit: 1024, pause: .seconds(3600), sink: writes.sink())
    buffer.append(Array("one\n".utf8))
    buffer.append(Array("two\n".utf8))
    #expect(writes.all.isEmpty)
    buffer.flush()
    #expect(writes.all == ["one\ntwo\n"])
    buffer.flush()
    #expect(writes.all == ["one\ntwo\n"])
  }

  @Test func theWriterThreadWritesALineWithoutAFlush() {
    let writes = Writes()
    let buffer = LineBuffer(limit: 1024, pause: .zero, sink: writes.sink())
    buffer.append(Array("listening\n".utf8))
    #expect(writes.written.wait(timeout: .now() + 60) == .success)
    #expect(writes.all == ["listening\n"])
  }

  @Test func aLineThatDoesNotFitIsWrittenAtOnceAfterTheBufferedOnes() {
    let writes = Writes()
    let buffer = LineBuffer(limit: 10, pause: .seconds(3600), sink: writes.sink())
    buffer.append(Array("short\n".utf8))
    let long = String(repeating: "x", count: 20) + "\n"
    buffer.append(Array(long.utf8))
    #expect(writes.all == ["short\n", long])
    buffer.append(Array("next\n".utf8))
    buffer.flush()
    #expect(writes.all == ["short\n", long, "next\n"])
  }
}
