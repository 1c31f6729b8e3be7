import SusiCore
import SusiJSON
import SusiStore
import Synchronization

/// What `--json` prints: every event a one-shot command logged, exactly as the log holds it,
/// gathered while the command runs and printed as one object at the end:
///
///     {"command":"ask","exitCode":0,"events":[…],"pending":[{"seq":7,"due":"…"}]}
///
/// `pending` lists the planned answers (reminders) still to come.
final class CommandRecord: Sendable {
  private let lines = Mutex<[[UInt8]]>([])

  /// Keeps `published`; called inside the store's turn, so it only appends.
  func add(_ published: PublishedEvent) { lines.withLock { $0.append(published.line) } }

  func json(command: String, exitCode: Int32, pending: [PendingAnswer]) -> String {
    var w = JSONWriter()
    w.raw(#"{"command":"#)
    w.string(command)
    w.raw(#","exitCode":"#)
    w.int(Int(exitCode))
    w.raw(#","events":["#)
    for (index, line) in lines.withLock({ $0 }).enumerated() {
      if index > 0 { w.byte(UInt8(ascii: ",")) }
      w.bytes += line
    }
    w.raw(#"],"pending":["#)
    for (index, answer) in pending.enumerated() {
      if index > 0 { w.byte(UInt8(ascii: ",")) }
      w.raw(#"{"seq":"#)
      w.int(answer.seq)
      if let due = answer.due {
        w.raw(#","due":"#)
        w.string(due.rfc3339)
      }
      w.byte(UInt8(ascii: "}"))
    }
    w.raw("]}")
    return String(decoding: w.bytes, as: UTF8.self)
  }
}
