import SusiCore
import Synchronization

/// The state after any seq of the log, for looking back in time (the browser's inspector):
/// folded by the same `Recovered.apply` as replay and the store, from the nearest point at or
/// before the seq asked for: a state handed out recently, the newest snapshot, or the start of
/// the log.
///
/// Callers often ask for neighbours (seq N-1 and N, to show what event N changed), so the last
/// two states are kept: one step through the log folds one event, not the log up to it.
public final class PastStates: Sendable {
  /// Why a state could not be rebuilt.
  public struct Failure: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
  }

  private let logPath: String
  private let feed: EventFeed
  private let recent = Mutex<[Recovered]>([])

  /// States of the log at `logPath`, whose events `feed` publishes.
  public init(logPath: String, feed: EventFeed) {
    self.logPath = logPath
    self.feed = feed
  }

  /// What folding the log up to and including event `seq` gives (`0`: the initial state).
  /// `seq` must be at most the store's last seq.
  public func state(after seq: Int) throws(Failure) -> Recovered {
    let kept = recent.withLock { $0 }.filter { $0.lastSeq <= seq }.max { $0.lastSeq < $1.lastSeq }
    if let kept, kept.lastSeq == seq { return kept }
    var recovered: Recovered
    let files = SnapshotFiles(logPath: logPath)
    let snapshot = files.all().first { $0.seq <= seq && $0.seq > (kept?.lastSeq ?? 0) }
    if let kept, snapshot == nil {
      recovered = kept
    } else {
      recovered = try replay(to: seq, from: snapshot.flatMap { try? files.load($0.path).get() })
    }
    // From a kept state, or past the snapshot's end of the log: the events still missing.
    while recovered.lastSeq < seq {
      let events: [PublishedEvent]
      do {
        events = try feed.events(
          after: recovered.lastSeq, limit: min(seq - recovered.lastSeq, 1000))
      } catch {
        throw Failure(message: "\(error)")
      }
      guard !events.isEmpty else {
        throw Failure(message: "the log ends at seq \(recovered.lastSeq), before \(seq)")
      }
      for event in events { recovered.apply(event.event) }
    }
    let folded = recovered
    recent.withLock { recent in
      recent.append(folded)
      if recent.count > 2 { recent.removeFirst() }
    }
    return recovered
  }

  /// Replays the log file up to `seq`, starting from `snapshot` when given.
  private func replay(to seq: Int, from snapshot: Snapshot?) throws(Failure) -> Recovered {
    var recovered = snapshot?.recovered ?? Recovered()
    guard recovered.lastSeq < seq else { return recovered }
    do {
      try LogReplay.run(
        path: logPath, into: &recovered, until: seq, after: snapshot?.checkpoint)
    } catch {
      throw Failure(message: "\(error)")
    }
    return recovered
  }
}
