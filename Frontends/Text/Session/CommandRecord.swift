import SusiCore
import SusiJSON
import SusiStore
import Synchronization

/// What `--json` prints, gathered while a one-shot command runs: the events this command logged
/// and their results, never another process's (a result counts when it answers one of them).
///
/// `--json` prints the data: the payload of the command's result (the answer, the skill list,
/// the settings …). `--json=events` prints every event, exactly as the log holds it:
///
///     {"command":"ask","exitCode":0,"events":[…],"pending":[{"seq":7,"due":"…"}]}
///
/// `pending` lists the planned answers (reminders) this command's answers planned, still to come.
final class CommandRecord: Sendable {
  private let record = Mutex<(lines: [[UInt8]], events: [Event], seqs: Set<Int>)>(([], [], []))

  /// Keeps `published` when it is this process's own intent or a result of one kept before;
  /// called inside the store's turn, so it only appends.
  func add(_ published: PublishedEvent) {
    record.withLock { record in
      let event = published.event
      let ours = event.cause.map { record.seqs.contains($0) } ?? !published.byAnotherProcess
      guard ours else { return }
      record.seqs.insert(event.seq)
      record.lines.append(published.line)
      record.events.append(event)
    }
  }

  /// The seqs kept: planned answers are pending for this command only when one of these
  /// planned them.
  var seqs: Set<Int> { record.withLock { $0.seqs } }

  /// `--json`: the payload of the last result of the command's kind, or `fallback` (what the
  /// command shows from the state, such as the settings) when it logged none; nil when there
  /// is no data (the command failed).
  func data(command: String, fallback: Action?) -> String? {
    let types = TextCommands.named(command)?.data ?? []
    let events = record.withLock { $0.events }
    guard let action = events.last(where: { types.contains($0.action.type) })?.action ?? fallback
    else { return nil }
    var w = JSONWriter()
    action.writePayload(to: &w)
    return String(decoding: w.bytes, as: UTF8.self)
  }

  /// `--json=events`.
  func json(command: String, exitCode: Int32, pending: [PendingAnswer]) -> String {
    var w = JSONWriter()
    w.object { o in
      o.field("command", command)
      o.field("exitCode", Int(exitCode))
      o.field("events") { $0.array(record.withLock { $0.lines }) { w, line in w.bytes += line } }
      o.field("pending") {
        $0.array(pending) { w, answer in
          w.object { o in
            o.field("seq", answer.seq)
            o.field("due", answer.due?.rfc3339)
          }
        }
      }
    }
    return String(decoding: w.bytes, as: UTF8.self)
  }
}
