public import SusiFiles
import SusiJSON
import Synchronization

/// Where the subscribers are kept when not in a file: a table in the database a log in
/// PostgreSQL is in, which every node of a fleet shares.
public protocol SubscriberStorage: Sendable {
  /// Where the subscribers are, for messages.
  var name: String { get }
  /// Every subscriber, in the order they were added.
  func load() throws(PrivateFile.Failure) -> [Subscriber]
  /// Adds `subscriber` unless one of its id is stored already (another node may have added it);
  /// returns whether it did, and every subscriber stored now.
  func add(_ subscriber: Subscriber) throws(PrivateFile.Failure) -> (added: Bool, now: [Subscriber])
  /// Removes subscriber `id`; returns whether there was one, and every subscriber stored now.
  func remove(_ id: String) throws(PrivateFile.Failure) -> (removed: Bool, now: [Subscriber])
}

/// The subscribers, kept in a file beside the log (mode 0600: it holds their secrets), or in a
/// shared `SubscriberStorage`. People may write the file by hand; every change made here
/// rewrites it atomically.
///
/// ```
/// {"subscribers":[{"id":"billing","url":"https://example.org/hook","events":["ratingSubmitted"],
///                  "secret":"whsec_…"}]}
/// ```
public final class SubscriberFile: Sendable {
  /// Where it is kept (the file's path, or the storage's name); nil keeps subscribers in memory
  /// only.
  public let path: String?
  /// The shared storage, when the subscribers are kept in one rather than in a file.
  private let storage: (any SubscriberStorage)?
  private let entries: Mutex<[Subscriber]>

  /// Loads the subscribers kept in `storage`.
  public init(storage: any SubscriberStorage) throws(PrivateFile.Failure) {
    path = storage.name
    self.storage = storage
    entries = Mutex(try storage.load())
  }

  /// Whether other processes change the subscribers too (a shared storage): `reload` then
  /// picks up their changes.
  public var isShared: Bool { storage != nil }

  /// Reads the shared storage again, for subscribers other nodes added or removed; returns
  /// every subscriber now. A storage that cannot be read leaves the ones known so far (and
  /// throws).
  @discardableResult
  public func reload() throws(PrivateFile.Failure) -> [Subscriber] {
    guard let storage else { return subscribers }
    let loaded = try storage.load()
    entries.withLock { $0 = loaded }
    return loaded
  }

  /// Loads the file (a missing file means no subscribers).
  public init(path: String?) throws(PrivateFile.Failure) {
    self.path = path
    storage = nil
    var loaded: [Subscriber] = []
    if let path, let bytes = try PrivateFile.read(path, ownerOnly: true) {
      loaded = try Self.decode(bytes, path: path)
    }
    entries = Mutex(loaded)
  }

  /// Subscribers kept in memory only, starting with `subscribers`.
  public init(memory subscribers: [Subscriber] = []) {
    path = nil
    storage = nil
    entries = Mutex(subscribers)
  }

  /// Every subscriber, in file order.
  public var subscribers: [Subscriber] { entries.withLock { $0 } }

  /// The subscriber called `id`, if any.
  public func subscriber(_ id: String) -> Subscriber? {
    entries.withLock { $0.first { $0.id == id } }
  }

  /// Adds a subscriber and writes the file; false (and nothing written) when a subscriber of
  /// that id exists already.
  @discardableResult
  public func add(_ subscriber: Subscriber) throws(PrivateFile.Failure) -> Bool {
    if let storage {
      return try entries.withLock { (list) throws(PrivateFile.Failure) in
        let stored = try storage.add(subscriber)
        list = stored.now
        return stored.added
      }
    }
    var added = false
    try update { list in
      guard !list.contains(where: { $0.id == subscriber.id }) else { return }
      list.append(subscriber)
      added = true
    }
    return added
  }

  /// Removes a subscriber and writes the file; false when there was none.
  @discardableResult
  public func remove(_ id: String) throws(PrivateFile.Failure) -> Bool {
    if let storage {
      return try entries.withLock { (list) throws(PrivateFile.Failure) -> Bool in
        let (removed, now) = try storage.remove(id)
        list = now
        return removed
      }
    }
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
