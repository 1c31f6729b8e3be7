public import SusiFiles
import SusiJSON
import Synchronization

/// The subscribers, kept in a file beside the log (mode 0600: it holds their secrets).
/// People may write it by hand; every change made here rewrites it atomically.
///
/// ```
/// {"subscribers":[{"id":"billing","url":"https://example.org/hook","events":["ratingSubmitted"],
///                  "secret":"whsec_…"}]}
/// ```
public final class SubscriberFile: Sendable {
  /// Where it is kept; nil keeps subscribers in memory only.
  public let path: String?
  private let entries: Mutex<[Subscriber]>

  /// Loads the file (a missing file means no subscribers).
  public init(path: String?) throws(PrivateFile.Failure) {
    self.path = path
    var loaded: [Subscriber] = []
    if let path, let bytes = try PrivateFile.read(path, ownerOnly: true) {
      loaded = try Self.decode(bytes, path: path)
    }
    entries = Mutex(loaded)
  }

  /// Subscribers kept in memory only, starting with `subscribers`.
  public init(memory subscribers: [Subscriber] = []) {
    path = nil
    entries = Mutex(subscribers)
  }

  /// Every subscriber, in file order.
  public var subscribers: [Subscriber] { entries.withLock { $0 } }

  /// The subscriber called `id`, if any.
  public func subscriber(_ id: String) -> Subscriber? {
    entries.withLock { $0.first { $0.id == id } }
  }

  /// Adds a subscriber and writes the file; refuses a duplicate id.
  public func add(_ subscriber: Subscriber) throws(PrivateFile.Failure) {
    try update { (list) throws(PrivateFile.Failure) in
      guard !list.contains(where: { $0.id == subscriber.id }) else {
        throw PrivateFile.Failure(
          path: path ?? "subscribers", reason: "a subscriber \(subscriber.id) exists already")
      }
      list.append(subscriber)
    }
  }

  /// Removes a subscriber and writes the file; false when there was none.
  @discardableResult
  public func remove(_ id: String) throws(PrivateFile.Failure) -> Bool {
    var removed = false
    try update { list in
      let before = list.count
      list.removeAll { $0.id == id }
      removed = list.count != before
    }
    return removed
  }

  private func update(_ change: (inout [Subscriber]) throws(PrivateFile.Failure) -> Void)
    throws(PrivateFile.Failure)
  {
    try entries.withLock { (list) throws(PrivateFile.Failure) in
      var next = list
      try change(&next)
      if let path { try PrivateFile.write(Self.encode(next), to: path) }
      list = next
    }
  }

  static func decode(_ bytes: [UInt8], path: String) throws(PrivateFile.Failure) -> [Subscriber] {
    do {
      let r = try FieldReader(try JSONParser.parse(bytes))
      var list: [Subscriber] = []
      for entry in try r.objects("subscribers") {
        let subscriber = try Subscriber(reading: entry)
        if let problem = subscriber.problem {
          throw PrivateFile.Failure(path: path, reason: problem)
        }
        guard !list.contains(where: { $0.id == subscriber.id }) else {
          throw PrivateFile.Failure(
            path: path, reason: "subscriber \(subscriber.id) is listed twice")
        }
        list.append(subscriber)
      }
      return list
    } catch let failure as PrivateFile.Failure {
      throw failure
    } catch {
      throw PrivateFile.Failure(path: path, reason: "is not a valid subscribers file: \(error)")
    }
  }

  static func encode(_ list: [Subscriber]) -> [UInt8] {
    var w = JSONWriter()
    w.object { o in
      o.field("subscribers") { w in w.array(list) { w, s in s.write(to: &w, includingSecret: true) }
      }
    }
    w.byte(0x0A)
    return w.bytes
  }
}
