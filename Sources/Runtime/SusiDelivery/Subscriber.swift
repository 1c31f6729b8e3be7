public import SusiCore
public import SusiHTTPClient
public import SusiJSON

/// A receiver of outbound deliveries: where to POST, which event types, and the secret the
/// deliveries are signed with.
public struct Subscriber: Sendable, Equatable {
  /// A short name: lower-case letters, digits, `.`, `_`, `-` (generated ids look like
  /// `sub_3f9a…`).
  public var id: String
  /// An absolute `http` or `https` URL. Redirects are not followed.
  public var url: String
  /// The event types it gets (`messageReceived`, …); empty means every event.
  public var events: EventFilter
  /// The key deliveries are signed with.
  public var secret: WebhookSecret
  /// Where its deliveries start the first time it is seen: after this seq (0 = the whole
  /// log); nil = after the last event at that moment.
  public var after: Int?

  /// A subscriber; see the properties.
  public init(
    id: String, url: String, events: EventFilter = [], secret: WebhookSecret, after: Int? = nil
  ) {
    self.id = id
    self.url = url
    self.events = events
    self.secret = secret
    self.after = after
  }

  /// Whether events of `type` go to this subscriber.
  public func wants(_ type: ActionType) -> Bool {
    events.admits(type)
  }

  /// Refuses a subscriber `url` that resolves to an address `targets` does not let deliveries
  /// post to, resolving its name off the caller's thread: the one check the HTTP API and the
  /// command line both make before adding a subscriber. A name that does not resolve now is
  /// let through: every delivery attempt checks again.
  public static func checkTarget(_ url: String, targets: TargetPolicy) async throws(TransportError)
  {
    guard !targets.isExempt(url) else { return }
    let refusal = await Task.detached { () -> TransportError? in
      do throws(TransportError) {
        _ = try targets.check(url)
        return nil
      } catch {
        if case .refused = error { return error }
        return nil
      }
    }.value
    if let refusal { throw refusal }
  }

  /// Why this subscriber cannot be used, or nil.
  public var problem: String? {
    if let problem = Self.idProblem(id) { return problem }
    guard Validation.webURL(url) else { return "subscriber \(id): '\(url)' is not an http(s) URL" }
    if let name = events.unknown.first {
      return "subscriber \(id): there is no event type '\(name)'"
    }
    if let after, after < 0 { return "subscriber \(id): after must be 0 or more" }
    return nil
  }

  static func idProblem(_ id: String) -> String? {
    let bytes = Array(id.utf8)
    let valid =
      (1...64).contains(bytes.count)
      && bytes.allSatisfy { b in
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b)
          || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b)
          || b == UInt8(ascii: ".") || b == UInt8(ascii: "_") || b == UInt8(ascii: "-")
      }
    return valid
      ? nil
      : "'\(id)' is not a subscriber id: use 1 to 64 lower-case letters, digits, '.', '_' or '-'"
  }

  /// Reads one entry of the subscribers file, or a subscriber given as JSON in the same shape;
  /// `defaultID` is the id when the entry has none.
  public init(reading r: FieldReader, id defaultID: String? = nil) throws(JSONShapeError) {
    try r.rejectUnknownKeys(["id", "url", "events", "secret", "after"])
    guard let id = try r.optionalString("id") ?? defaultID else {
      throw JSONShapeError(path: r.fieldPath("id"), reason: "missing")
    }
    let secretText = try r.string("secret")
    guard let secret = WebhookSecret(secretText) else {
      throw JSONShapeError(
        path: r.fieldPath("secret"), reason: "expected whsec_ and base64 of 24 to 64 bytes")
    }
    let events = EventFilter(names: r.has("events") ? try r.strings("events") : [])
    self.init(
      id: id, url: try r.string("url"), events: events, secret: secret,
      after: try r.optionalInt("after"))
  }

  /// The entry as the subscribers file holds it, secret included: what a shared
  /// `SubscriberStorage` keeps (read back with `init(reading:)`).
  public func storedEntry() -> [UInt8] {
    var w = JSONWriter()
    write(to: &w, includingSecret: true)
    return w.bytes
  }

  /// Writes the entry (secret included: only for the subscribers file).
  func write(to w: inout JSONWriter, includingSecret: Bool) {
    w.object { o in
      o.field("id", id)
      o.field("url", url)
      o.field("events", events.names)
      if includingSecret { o.field("secret", secret.text) }
      o.field("after", after)
    }
  }
}

/// The event types a subscriber gets: every one (`*`, or none named), or those named. A name no
/// event type has is kept (in `unknown`), so that `Subscriber.problem` can say which.
public struct EventFilter: Equatable, Sendable, ExpressibleByArrayLiteral {
  /// The types named; empty means every type (unless only unknown names were given).
  public private(set) var types: Set<ActionType>
  /// Names given that no event type has, in the order given.
  public private(set) var unknown: [String]

  /// The filter these names make; `*` means every event.
  public init(names: some Sequence<String>) {
    var types = Set<ActionType>()
    var unknown: [String] = []
    for name in names where name != "*" {
      if let type = ActionType(rawValue: name) {
        types.insert(type)
      } else if !unknown.contains(name) {
        unknown.append(name)
      }
    }
    self.types = types
    self.unknown = unknown
  }

  public init(arrayLiteral names: String...) { self.init(names: names) }

  /// Whether it lets every event through.
  public var isEveryEvent: Bool { types.isEmpty && unknown.isEmpty }

  /// Whether events of `type` pass.
  public func admits(_ type: ActionType) -> Bool { isEveryEvent || types.contains(type) }

  /// The names, sorted; `["*"]` for every event.
  public var names: [String] {
    isEveryEvent ? ["*"] : (types.map(\.rawValue) + unknown).sorted()
  }
}
