public import SusiJSON

// Reading a log record straight from its bytes: replay and every start decode millions of them.
//
// `Event.read` walks the record with a pull reader and builds the event without a `JSON` tree:
// the envelope field by field, the payload by the codec's own field rules (`Action.decodeFields`,
// the rules `Action.decode` runs on a tree) through a `BytesFieldReader` over its bytes.
// Whenever a record is not exactly what this writer writes (a field it does not know, a repeated
// key, an unexpected type, a key with escapes), it gives up and `Event.decode` reads the record:
// so the result, and every error message, is the tree decoder's.

extension Event {
  /// Reads a record (a JSON object, checksum already removed), like `decode(_:)`, faster. With
  /// `strings`, a string read before in the same cache (the same answer or skill in record
  /// after record) is shared rather than made again.
  public static func read(
    _ bytes: UnsafeRawBufferPointer, strings: JSONStringCache? = nil
  ) throws(EventDecodingError) -> Event {
    var reader = JSONReader(bytes, maximumDepth: Nesting.readable, strings: strings)
    do {
      return try readFast(&reader)
    } catch {
      return try decode(bytes)
    }
  }

  /// Thrown when a record must go through the tree decoder.
  private struct Unusual: Error {}

  /// The event; throws when the record must go through the tree decoder.
  private static func readFast(_ r: inout JSONReader) throws -> Event {
    var seen = EnvelopeFields()
    var version = 1
    var type: ActionType?
    var hasAction = false
    // The fields go straight into the event that is returned, with a stand-in action until the
    // payload is read.
    var event = Event(
      seq: 0, at: Timestamp(milliseconds: 0), origin: EventOrigin(rawValue: "cli"), action: .logout
    )
    try r.enterObject()
    // Member i of `envelopeMembers` is the field with raw value 1 << i.
    var members = Members(envelopeMembers)
    while let index = try members.next(&r) {
      let field = EnvelopeFields(rawValue: 1 << index)
      seen.insert(field)
      switch field {
      case .version: version = try r.int()
      case .seq: event.seq = try r.int()
      case .at:
        let text = try r.stringBytes()
        guard !text.hasEscapes, let t = Timestamp(rfc3339Bytes: text.bytes) else { throw Unusual() }
        event.at = t
      case .origin: event.origin.rawValue = try origin(&r)
      case .requestID: if !(try r.null()) { event.origin.requestID = try r.string() }
      case .cause: if !(try r.null()) { event.cause = try r.int() }
      case .id:
        switch try r.kind() {
        case .null: _ = try r.null()
        case .number: event.id = try r.number()
        default: event.id = try r.value()
        }
      case .idempotencyKey: if !(try r.null()) { event.idempotencyKey = try r.string() }
      case .type:
        guard let t = actionType(try r.stringBytes()) else { throw Unusual() }
        type = t
      default:  // .payload
        guard let type, let a = try readAction(type, &r) else { throw Unusual() }
        event.action = a
        hasAction = true
      }
    }
    guard !members.refused else { throw Unusual() }
    try r.finish()
    guard version == 1 || version == formatVersion, seen.contains(.required), let type else {
      throw Unusual()
    }
    if !hasAction {
      // No payload member: `{}`.
      event.action = try Action.decode(type: type.rawValue, payload: nil)
    }
    return event
  }

  /// The origins this code names, as the log writes them.
  private static let knownOrigins: [(name: StaticString, origin: EventOrigin)] = [
    ("jsonl", .jsonl), ("runner", .runner), ("cli", .cli), ("webhook", .webhook), ("web", .web),
    ("store", .store),
  ]

  /// The origin's name: one this code names without making a string, any other read as one.
  private static func origin(_ r: inout JSONReader) throws -> String {
    let start = r.position
    let text = try r.stringBytes()
    for known in knownOrigins where text == known.name { return known.origin.rawValue }
    r.restore(start)
    return try r.string()
  }

  /// The action types by the length of their names, to find one without making a string.
  private static let actionTypesByLength: [[(name: [UInt8], type: ActionType)]] = {
    var table: [[(name: [UInt8], type: ActionType)]] = []
    for type in ActionType.allCases {
      let name = Array(type.rawValue.utf8)
      while table.count <= name.count { table.append([]) }
      table[name.count].append((name, type))
    }
    return table
  }()

  /// The action type named by `key`; nil for an unknown name or one written with escapes.
  private static func actionType(_ key: JSONReader.Key) -> ActionType? {
    // Most of a log.
    if key == "messageReceived" { return .messageReceived }
    if key == "sendMessage" { return .sendMessage }
    guard !key.hasEscapes, key.bytes.count < actionTypesByLength.count else { return nil }
    for candidate in actionTypesByLength[key.bytes.count]
    where candidate.name.withUnsafeBytes({ $0.elementsEqual(key.bytes) }) {
      return candidate.type
    }
    return nil
  }

  /// The envelope's members, to refuse a repeated one.
  private struct EnvelopeFields: OptionSet {
    let rawValue: UInt16

    static let version = EnvelopeFields(rawValue: 1)
    static let seq = EnvelopeFields(rawValue: 2)
    static let at = EnvelopeFields(rawValue: 4)
    static let origin = EnvelopeFields(rawValue: 8)
    static let requestID = EnvelopeFields(rawValue: 16)
    static let cause = EnvelopeFields(rawValue: 32)
    static let id = EnvelopeFields(rawValue: 64)
    static let idempotencyKey = EnvelopeFields(rawValue: 128)
    static let type = EnvelopeFields(rawValue: 256)
    static let payload = EnvelopeFields(rawValue: 512)
    static let required: EnvelopeFields = [.seq, .at, .origin, .type]
  }

  /// The envelope's members in the order the writer writes them: member i is the field whose
  /// raw value is 1 << i.
  private static let envelopeMembers: [StaticString] = [
    "v", "seq", "at", "origin", "requestId", "cause", "id", "idempotencyKey", "type", "payload",
  ]

  // MARK: Payloads

  /// The action of `type` read from the payload the reader is at, by the codec's field rules
  /// (`Action.decodeFields`) over its bytes; nil to use the tree decoder.
  private static func readAction(_ type: ActionType, _ r: inout JSONReader) throws -> Action? {
    if try r.null() { return try Action.decode(type: type.rawValue, payload: nil) }
    guard try r.kind() == .object else { return nil }
    var action: Action?
    try r.readFields { action = try Action.decodeFields(type: type, $0) }
    return action
  }

  /// The answers array the reader is at, each read by the codec's field rules over its bytes.
  /// Throws, or returns nil, when the tree decoder must read them.
  static func readAnswers(_ r: inout JSONReader) throws -> [AnswerAction]? {
    var answers: [AnswerAction] = []
    try r.enterArray()
    while try r.nextElement() {
      // Most replies carry two answers (an answer and a web search): one allocation, not two.
      if answers.isEmpty { answers.reserveCapacity(2) }
      guard try r.kind() == .object else { return nil }
      try r.readFields { answers.append(try AnswerAction(reading: $0)) }
    }
    return answers
  }

  /// The members of an object (the reader past its `{`) whose members are among `names`, one
  /// after the other: `next` gives each one's index in `names`, with the reader at its value,
  /// which the caller reads.
  ///
  /// `names` lists the members in the order the writer writes them: the one that comes next is
  /// found by its bytes, without reading its key (`JSONReader.nextKey(is:)`); any other is read
  /// and looked up.
  struct Members {
    let names: [StaticString]
    private var seen: UInt32 = 0
    private var following = 0
    /// True when `next` stopped at a member not in `names` or one that came twice: the object is
    /// not one this reader reads.
    private(set) var refused = false

    init(_ names: [StaticString]) { self.names = names }

    /// The index in `names` of the next member, or nil after the object's `}` (or when
    /// `refused`).
    @inline(__always) mutating func next(_ r: inout JSONReader) throws -> Int? {
      var index = following
      while index < names.count, !r.nextKey(is: names[index]) { index += 1 }
      if index == names.count {
        guard let key = try r.nextKey() else { return nil }
        guard let found = names.firstIndex(where: { key == $0 }) else {
          refused = true
          return nil
        }
        index = found
      }
      guard seen & (1 << index) == 0 else {
        refused = true
        return nil
      }
      seen |= 1 << index
      following = index + 1
      return index
    }
  }
}
