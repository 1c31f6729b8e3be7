/// Registering, removing and re-enabling subscribers, and listing them with their progress: what
/// `susi serve`'s admin tasks do. `SubscriberRegistry` changes the files only (for a command
/// line beside a server); `DeliveryService` also stops and starts the deliveries.
public protocol SubscriberAdministration: Sendable {
  /// Registers `subscriber`; with no `after`, it gets the events that follow `lastSeq`.
  /// Returns the subscriber as registered.
  func register(_ subscriber: Subscriber, lastSeq: Int) async throws(SubscriberRefusal)
    -> Subscriber
  /// Forgets subscriber `id` and its cursor.
  func remove(_ id: String) async throws(SubscriberRefusal)
  /// Lets deliveries to the disabled subscriber `id` go on, starting with the event it refused.
  func enable(_ id: String) async throws(SubscriberRefusal)
  /// Every subscriber with its progress against the log's `lastSeq`.
  func statuses(lastSeq: Int) -> [SubscriberStatus]
}

/// The subscribers file with the delivery cursors beside it. Registering and removing a
/// subscriber keeps the two in step, and listings read each subscriber's progress from them.
public struct SubscriberRegistry: SubscriberAdministration {
  /// The subscribers.
  public let file: SubscriberFile
  /// How far deliveries to each subscriber have got.
  public let cursors: any DeliveryCursorStore

  /// The subscribers in `file`, with their progress in `cursors`.
  public init(file: SubscriberFile, cursors: any DeliveryCursorStore) {
    self.file = file
    self.cursors = cursors
  }

  /// Adds `subscriber` to the file. With no `after`, it gets the events that follow `lastSeq`
  /// (the log's last event now). A cursor left under its id (by a subscriber of that id removed
  /// earlier) is cleared first, so deliveries start at `after`. Returns the subscriber as added.
  @discardableResult
  public func register(_ subscriber: Subscriber, lastSeq: Int) throws(SubscriberRefusal)
    -> Subscriber
  {
    if let problem = subscriber.problem {
      throw SubscriberRefusal(kind: .invalid, message: problem)
    }
    var subscriber = subscriber
    if subscriber.after == nil { subscriber.after = lastSeq }
    let conflict = SubscriberRefusal(
      kind: .conflict, message: "a subscriber \(subscriber.id) exists already")
    guard file.subscriber(subscriber.id) == nil else { throw conflict }
    let added: Bool
    do {
      try cursors.clearBeforeRegistering(subscriber.id)
      added = try file.add(subscriber)
    } catch {
      throw SubscriberRefusal(kind: .storage, message: "\(error)")
    }
    // Another node of a fleet added one of this id since this node last read the list.
    guard added else { throw conflict }
    return subscriber
  }

  /// Removes subscriber `id` from the file, then its cursor.
  public func remove(_ id: String) throws(SubscriberRefusal) {
    let removed: Bool
    do {
      removed = try file.remove(id)
    } catch {
      throw SubscriberRefusal(kind: .storage, message: "\(error)")
    }
    guard removed else {
      throw SubscriberRefusal(kind: .notFound, message: "no subscriber is called '\(id)'")
    }
    do {
      try cursors.remove(id)
    } catch {
      throw SubscriberRefusal(kind: .storage, message: "\(error)")
    }
  }

  /// Clears the disabled mark on subscriber `id`'s cursor.
  public func enable(_ id: String) throws(SubscriberRefusal) {
    guard file.subscriber(id) != nil else {
      throw SubscriberRefusal(kind: .notFound, message: "no subscriber is called '\(id)'")
    }
    do {
      try cursors.enable(id)
    } catch {
      throw SubscriberRefusal(kind: .storage, message: "\(error)")
    }
  }

  /// Every subscriber, in file order, with its progress against the log's `lastSeq` as the
  /// cursors record it.
  public func statuses(lastSeq: Int) -> [SubscriberStatus] {
    statuses(lastSeq: lastSeq, workers: [:])
  }

  /// Every subscriber, in file order, with its progress against `lastSeq`: from its running
  /// worker in `workers` (by subscriber id) if it has one, else from its cursor.
  func statuses(lastSeq: Int, workers: [String: DeliveryWorker.Status]) -> [SubscriberStatus] {
    file.subscribers.map { subscriber in
      let cursor = cursors.cursor(subscriber.id)
      let worker = workers[subscriber.id]
      let delivered = worker?.cursor ?? cursor?.delivered ?? subscriber.after ?? lastSeq
      return SubscriberStatus(
        id: subscriber.id, url: subscriber.url,
        events: subscriber.events.names,
        delivered: delivered, backlog: max(0, lastSeq - delivered), disabled: cursor?.disabled,
        failures: worker?.failures ?? 0, lastError: worker?.lastError,
        phase: worker?.phase.rawValue ?? "stopped")
    }
  }
}

/// One subscriber as listings show it (never its secret).
public struct SubscriberStatus: Sendable, Equatable {
  /// The subscriber's id.
  public var id: String
  /// Where deliveries go.
  public var url: String
  /// The event types it gets (`*` = all).
  public var events: [String]
  /// Every event up to this seq is done.
  public var delivered: Int
  /// Log events after `delivered`.
  public var backlog: Int
  /// Why deliveries stopped (`410 Gone`), if they did.
  public var disabled: String?
  /// Failed attempts at the current event.
  public var failures: Int
  /// The last failure.
  public var lastError: String?
  /// `idle`, `delivering`, `backingOff`, `disabled`, `stopped`, or `standby` (another node of a
  /// fleet holds its lease).
  public var phase: String
}

/// Why a subscriber change was refused.
public struct SubscriberRefusal: Error, Equatable, Sendable, CustomStringConvertible {
  /// What kind of refusal: bad input, a clash, an unknown id, or a file that could not be written.
  public enum Kind: Sendable { case invalid, conflict, notFound, storage }
  /// The kind of refusal.
  public var kind: Kind
  /// What went wrong.
  public var message: String
  public var description: String { message }

  /// A refusal of `kind` saying `message`.
  public init(kind: Kind, message: String) {
    self.kind = kind
    self.message = message
  }
}
