import Foundation
import SusiClock
import SusiEventLog
import SusiHTTPTesting
import SusiStore
import SusiTesting
import Testing

/// Following another process's appends without polling: inotify on the log file wakes the
/// follower. The fallback poll is set to an hour, so a follower that sees the appends was told
/// of them.
@Suite(.hangLimit)
struct LogFileWatcherTests {
  @Test func aWriteByAnotherProcessIsReportedByInotifyNotByThePoll() async throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("shared.jsonl")
    let writer = try EventLogWriter(
      path: path, options: .init(fsync: .never, firstSeq: nil, shared: true))
    let reported = AsyncStream<Void>.makeStream()
    let watcher = LogFileWatcher(path: path, fallback: 3_600_000) { () -> Bool in
      reported.continuation.yield()
      return true
    }
    #expect(watcher.isNotified)
    let child = try AppendChild(["--log", path, "--fsync", "never", "--count", "1", "--shared"])
    #expect(child.finish() == 0)
    var reports = reported.stream.makeAsyncIterator()
    await reports.next()
    #expect(watcher.wakes.notified >= 1)
    #expect(watcher.wakes.polled == 0)
    watcher.stop()
    #expect(try writer.appendedByOthers().count == 1)
    try writer.close()
  }

  @Test func aStoreFollowingItsLogSeesAnotherProcessesAppendsAtOnce() async throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("shared.jsonl")
    let opened = try LogRecovery.open(
      path: path, fsync: .never, environment: [LogRecovery.intervalVariable: "0"], shared: true)
    let store = Store(
      sink: FileEventSink(writer: opened.writer), runner: ManualRunner(),
      clock: SystemTimeSource(), recovered: opened.recovered)
    await store.followOtherWriters(fallback: .seconds(3600))
    var following = store.events(after: 0).makeAsyncIterator()
    let child = try AppendChild(["--log", path, "--fsync", "never", "--count", "3", "--shared"])
    #expect(child.finish() == 0)
    var seen: [Int] = []
    while seen.count < 3, let event = try await following.next() { seen.append(event.seq) }
    #expect(seen == [1, 2, 3])
    #expect(await store.lastSeq == 3)
    // Each was applied here after another process appended it: its lag was measured.
    #expect(store.timings.followLag.count == 3)
    #expect(store.timings.appendLatency.count == 0)
    await store.close()
  }
}
