import Foundation
public import SusiCore
import SusiEventLog
import SusiJSON
import SusiRunner
import SusiStore

/// The property every record must have, checked for one input from outside: whatever a server
/// replies (or another program sends as an intent), the events it leads to decode again to the
/// same value, fold through the reducer without trapping, and survive the log and a snapshot.
///
/// One check builds a short log in a folder of its own: the input as a `chat.json` reply to a
/// `sendMessage` (and every planned answer that reply leads to, delivered in turn), as a
/// `memory.json` reply to a `loadHistory`, as a skill list, and as an intent line when it is
/// one. It then checks
///
/// - every event: encoded, decoded, encoded again gives the same value and the same bytes;
/// - the log: a replay from its file gives the state the live fold gave;
/// - the snapshot: written after the last record and read back, it gives that state too, and a
///   start (`LogRecovery.open`) from it as well;
/// - the state's JSON is JSON (its canonical form is never the `null` of a failed parse).
///
/// A failure is a `Problem`; a trap is the bug itself (the fuzz target and the tests see it as
/// a crash).
public enum RecordRoundTrip {
  /// What did not hold, in words.
  public struct Problem: Error, CustomStringConvertible, Sendable {
    public var description: String
    init(_ description: String) { self.description = description }
  }

  /// The moment the log starts at.
  static let start = Timestamp(milliseconds: 1_795_255_200_000)

  /// Checks the property for `input` in a fresh folder under `directory` (removed afterwards).
  public static func check(_ input: [UInt8], under directory: String) throws(Problem) {
    let folder = directory + "/roundtrip-\(UUID().uuidString)"
    do {
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    } catch {
      throw Problem("cannot make \(folder): \(error)")
    }
    defer { try? FileManager.default.removeItem(atPath: folder) }
    try check(events: events(for: input), in: folder)
  }

  /// The events `input` leads to, in the order a live run would log them.
  public static func events(for input: [UInt8]) -> [Event] {
    var live = Recovered()
    var events: [Event] = []
    var at = start
    func log(_ action: Action, origin: EventOrigin, cause: Int? = nil, id: JSON? = nil) -> Reaction
    {
      let event = Event(
        seq: events.count + 1, at: at, origin: origin, cause: cause, id: id, action: action)
      events.append(event)
      return live.apply(event)
    }

    // A chat reply, and each planned answer it leads to, one after another.
    let query = Action.sendMessage(Action.SendMessage(query: "hello"))
    _ = log(query, origin: .cli)
    var cause = events.count
    var reaction = log(
      ReplyDecoding.chat(input, query: "hello", cause: cause), origin: .runner, cause: cause)
    // Every delivery logs one more event; the cap on planned answers bounds the loop, and this
    // bound stops it should that cap ever fail.
    var deliveries = 0
    while deliveries <= 2_000,
      let (delay, message) = reaction.effects.lazy.compactMap(\.plannedDelivery).first
    {
      deliveries += 1
      cause = events.count
      at = at.adding(milliseconds: Int64(delay))
      reaction = log(.messageReceived(message), origin: .runner, cause: cause)
    }

    // A memory reply.
    _ = log(.loadHistory(Action.LoadHistory()), origin: .cli)
    cause = events.count
    _ = log(ReplyDecoding.memory(input, cause: cause), origin: .runner, cause: cause)

    // A skill list.
    _ = log(.loadSkills(Action.LoadSkills()), origin: .cli)
    cause = events.count
    _ = log(
      ReplyDecoding.skillList(input, server: "http://127.0.0.1:4000", cause: cause),
      origin: .runner, cause: cause)

    // An intent line from another program, with its id.
    let accepted = input.withUnsafeBytes { bytes in
      try? IntentEnvelope.decode(bytes, accessChanges: .refused(hint: "not here"))
    }
    if let accepted { _ = log(accepted.action, origin: .jsonl, id: accepted.id) }
    return events
  }

  /// Checks the property for `events` with a log in `folder`.
  public static func check(events: [Event], in folder: String) throws(Problem) {
    var live = Recovered()
    for event in events {
      let bytes = event.encoded()
      let decoded: Event
      do {
        decoded = try Event.decode(bytes)
      } catch {
        throw Problem("seq \(event.seq) (\(event.action.type)) does not decode: \(error)")
      }
      guard decoded == event else {
        throw Problem(
          "seq \(event.seq) decodes to another value: \(text(bytes)) gave \(text(decoded.encoded()))"
        )
      }
      // Replay reads records with the pull reader: it must read what the tree decoder reads.
      let read = try? bytes.withUnsafeBytes { raw in try Event.read(raw) }
      guard read == decoded else {
        throw Problem("seq \(event.seq) reads differently with the pull reader: \(text(bytes))")
      }
      guard decoded.encoded() == bytes else {
        throw Problem("seq \(event.seq) encodes differently once read back: \(text(bytes))")
      }
      live.apply(event)
    }
    guard live.state.json != .null else {
      throw Problem("the state's JSON does not read back")
    }

    let log = folder + "/events.jsonl"
    var ends: [Int] = []
    do {
      let writer = try EventLogWriter(path: log, options: .init(fsync: .never))
      for event in events {
        try writer.append(event.encoded())
        ends.append(writer.length)
      }
      try writer.close()
    } catch {
      throw Problem("the log refused a record: \(error)")
    }

    var replayed = Recovered()
    do {
      try LogReplay.run(path: log, into: &replayed)
    } catch {
      throw Problem("the log does not replay: \(error)")
    }
    try same(replayed, live, "a replay of the log")

    guard let lastEnd = ends.last else { return }
    let files = SnapshotFiles(logPath: log)
    do {
      let checkpoint = try EventLogCheckpoint.ofRecord(
        endingAt: lastEnd, inLogAt: log, seq: live.lastSeq, line: events.count)
      try files.write(Snapshot(checkpoint: checkpoint, recovered: live))
    } catch {
      throw Problem("the snapshot cannot be written: \(error)")
    }
    switch files.load(files.path(forSeq: live.lastSeq)) {
    case .success(let loaded): try same(loaded.recovered, live, "the snapshot read back")
    case .failure(let problem): throw Problem("the snapshot does not read back: \(problem)")
    }
    do {
      let opened = try LogRecovery.open(path: log, fsync: .never, environment: [:])
      defer { try? opened.writer.close() }
      guard opened.snapshotSeq == live.lastSeq else {
        throw Problem("a start did not use the snapshot: \(opened.warnings)")
      }
      try same(opened.recovered, live, "a start from the snapshot")
    } catch let problem as Problem {
      throw problem
    } catch {
      throw Problem("the log does not open: \(error)")
    }
  }

  private static func same(_ found: Recovered, _ expected: Recovered, _ what: String)
    throws(Problem)
  {
    guard found.state == expected.state else {
      throw Problem(
        "\(what) gives another state:\n\(text(found.state.canonicalJSON()))\ninstead of\n"
          + text(expected.state.canonicalJSON()))
    }
    guard found.state.canonicalJSON() == expected.state.canonicalJSON(),
      found.lastSeq == expected.lastSeq, found.lastAt == expected.lastAt
    else { throw Problem("\(what) gives another state's JSON, or another last record") }
  }

  private static func text(_ bytes: [UInt8]) -> String {
    let text = String(decoding: bytes.prefix(2000), as: UTF8.self)
    return bytes.count > 2000 ? text + "…" : text
  }
}

extension Effect {
  /// The delay and message of a planned answer's delivery.
  fileprivate var plannedDelivery: (Int, Action.MessageReceived)? {
    if case .deliverLater(let delay, let message) = self { (delay, message) } else { nil }
  }
}
