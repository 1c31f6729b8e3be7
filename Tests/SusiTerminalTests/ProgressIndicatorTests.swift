import SusiTesting
import Synchronization
import Testing

@testable import SusiTerminal

@Suite struct ProgressIndicatorTests {
  final class Written: Sendable {
    let texts = Mutex<[String]>([])
    func write(_ text: String) { texts.withLock { $0.append(text) } }
    var all: [String] { texts.withLock { $0 } }
  }

  @Test func drawsInPlaceAndErasesItsLineWhenStopped() async {
    let written = Written()
    let progress = ProgressIndicator(
      "Loading all skills", after: .zero, enabled: true, glyphs: .ascii, write: written.write)
    await waitUntil("the first drawing") { !written.all.isEmpty }
    await progress.stop()
    let texts = written.all
    #expect(texts.first == "\r| Loading all skills\u{1B}[K")
    #expect(texts.last == "\r\u{1B}[K")
  }

  @Test func drawsNothingWhenDisabled() async {
    let written = Written()
    let progress = ProgressIndicator(
      "x", after: .zero, enabled: false, glyphs: .ascii, write: written.write)
    await progress.stop()
    #expect(written.all.isEmpty)
  }

  @Test func drawsNothingForAFastRequest() async {
    let written = Written()
    let progress = ProgressIndicator(
      "x", after: .seconds(3600), enabled: true, glyphs: .ascii, write: written.write)
    await progress.stop()
    #expect(written.all.isEmpty)
  }
}
