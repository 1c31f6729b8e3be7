import SusiJSON

// Reading a log record straight from its bytes: replay and every start decode millions of them.
//
// `Event.read` walks the record with a pull reader and builds the event without a `JSON` tree.
// It knows the envelope and the payloads that make up most of a log (chats, skill and group
// lists) field by field; any other payload is read as a tree and handed to `Action.decode`, and a
// field it does not read itself is handed to the same per-field readers `Action.decode` uses.
// Whenever a record is not exactly what this writer writes (a field it does not know, a repeated
// key, an unexpected type, a key with escapes), it gives up and `Event.decode` reads the record:
// so the result, and every error message, is the tree decoder's.

extension Event {
  /// Reads a record (a JSON object, checksum already removed), like `decode(_:)`, faster.
  public static func read(_ bytes: UnsafeRawBufferPointer) throws(EventDecodingError) -> Event {
    var reader = JSONReader(bytes, maximumDepth: Nesting.readable)
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
    var seq = 0
    var at = Timestamp(milliseconds: 0)
    var origin = EventOrigin.cli
    var cause: Int?
    var id: JSON?
    var idempotencyKey: String?
    var type: ActionType?
    var action: Action?
    try r.enterObject()
    while let key = try r.nextKey() {
      let field = EnvelopeFields(key)
      guard !field.isEmpty, seen.isDisjoint(with: field) else { throw Unusual() }
      seen.insert(field)
      switch field {
      case .version: version = try r.int()
      case .seq: seq = try r.int()
      case .at:
        let text = try r.stringBytes()
        guard !text.hasEscapes, let t = Timestamp(rfc3339Bytes: text.bytes) else { throw Unusual() }
        at = t
      case .origin: origin.rawValue = try r.string()
      case .requestID: if !(try r.null()) { origin.requestID = try r.string() }
      case .cause: if !(try r.null()) { cause = try r.int() }
      case .id:
        switch try r.kind() {
        case .null: _ = try r.null()
        case .number: id = try r.number()
        default: id = try r.value()
        }
      case .idempotencyKey: if !(try r.null()) { idempotencyKey = try r.string() }
      case .type:
        guard let t = actionType(try r.stringBytes()) else { throw Unusual() }
        type = t
      default:  // .payload
        guard let type, let a = try readAction(type, &r) else { throw Unusual() }
        action = a
      }
    }
    try r.finish()
    guard version == 1 || version == formatVersion, seen.contains(.required) else {
      throw Unusual()
    }
    if action == nil, let type {
      // No payload member: `{}`.
      action = try Action.decode(type: type.rawValue, payload: nil)
    }
    guard let action else { throw Unusual() }
    return Event(
      seq: seq, at: at, origin: origin, cause: cause, id: id, idempotencyKey: idempotencyKey,
      action: action)
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
    init(rawValue: UInt16) { self.rawValue = rawValue }

    static let version = EnvelopeFields(rawValue: 1)
    static let seq = EnvelopeFields(rawValue: 2)
    static let at = EnvelopeFields(rawValue: 4)
    static let origin = EnvelopeFields(rawValue: 8)
    static let cause = EnvelopeFields(rawValue: 16)
    static let id = EnvelopeFields(rawValue: 32)
    static let idempotencyKey = EnvelopeFields(rawValue: 64)
    static let type = EnvelopeFields(rawValue: 128)
    static let payload = EnvelopeFields(rawValue: 256)
    static let requestID = EnvelopeFields(rawValue: 512)
    static let required: EnvelopeFields = [.seq, .at, .origin, .type]

    init(_ key: JSONReader.Key) {
      // The length picks the one candidate; its bytes must then match. (A one-character
      // `StaticString` may have no pointer for `==` to compare, so `v` is checked by hand.)
      switch key.bytes.count {
      case 1: self = !key.hasEscapes && key.bytes[0] == UInt8(ascii: "v") ? .version : []
      case 2: self = key == "at" ? .at : key == "id" ? .id : []
      case 3: self = key == "seq" ? .seq : []
      case 4: self = key == "type" ? .type : []
      case 5: self = key == "cause" ? .cause : []
      case 6: self = key == "origin" ? .origin : []
      case 7: self = key == "payload" ? .payload : []
      case 9: self = key == "requestId" ? .requestID : []
      case 14: self = key == "idempotencyKey" ? .idempotencyKey : []
      default: self = []
      }
    }
  }

  // MARK: Payloads

  /// The action of `type` read from the payload the reader is at; nil to use the tree decoder.
  private static func readAction(_ type: ActionType, _ r: inout JSONReader) throws -> Action? {
    switch type {
    case .sendMessage:
      var query: String?
      var language: String??
      let complete = try readObject(&r) { key, r in
        if key == "query", query == nil {
          query = try r.string()
        } else if key == "language", language == nil {
          language = .some(try r.null() ? nil : try r.string())
        } else {
          return false
        }
        return true
      }
      guard complete, let query else { return nil }
      return .sendMessage(Action.SendMessage(query: query, language: language ?? nil))
    case .messageReceived:
      return try readMessageReceived(&r).map(Action.messageReceived)
    default:
      if try r.null() { return try Action.decode(type: type.rawValue, payload: nil) }
      return try Action.decode(type: type.rawValue, payload: try r.value())
    }
  }

  private static func readMessageReceived(_ r: inout JSONReader) throws -> Action.MessageReceived? {
    var query: String?
    var answers: [AnswerAction]?
    var skill: String??
    var planned: [PlannedAnswer]?
    var anonymous: Bool??
    let complete = try readObject(&r) { key, r in
      if key == "query", query == nil {
        query = try r.string()
      } else if key == "answers", answers == nil {
        guard let read = try readAnswers(&r) else { return false }
        answers = read
      } else if key == "skill", skill == nil {
        skill = .some(try r.null() ? nil : try r.string())
      } else if key == "anonymous", anonymous == nil {
        anonymous = .some(try r.null() ? nil : try r.bool())
      } else if key == "planned", planned == nil {
        // Rare: read through the tree decoder's own reader.
        planned = try readPlanned(member("planned", try r.value()), "planned")
      } else {
        return false
      }
      return true
    }
    guard complete, let query, let answers else { return nil }
    return Action.MessageReceived(
      query: query, answers: answers, skill: skill ?? nil, planned: planned ?? [],
      anonymous: anonymous ?? nil)
  }

  /// The answers array; plain answers are read field by field, any other kind through its tree
  /// reader. Nil to use the tree decoder.
  private static func readAnswers(_ r: inout JSONReader) throws -> [AnswerAction]? {
    var answers: [AnswerAction] = []
    try r.enterArray()
    while try r.nextElement() {
      let start = r.position
      if let answer = try readPlainAnswer(&r) {
        answers.append(answer)
      } else {
        r.restore(start)
        let value = try r.value()
        guard case .object(let object) = value else { return nil }
        answers.append(try AnswerAction(reading: FieldReader(object, path: "payload.answers")))
      }
    }
    return answers
  }

  /// An answer of type `answer` or `websearch` written as this writer writes it (type first),
  /// or nil.
  private static func readPlainAnswer(_ r: inout JSONReader) throws -> AnswerAction? {
    try r.enterObject()
    guard let first = try r.nextKey(), first == "type" else { return nil }
    let type = try r.stringBytes()
    if type == "answer" {
      var expression: String?
      var language: String??
      var mood: String??
      while let key = try r.nextKey() {
        if key == "expression", expression == nil {
          expression = try r.string()
        } else if key == "language", language == nil {
          language = .some(try r.null() ? nil : try r.string())
        } else if key == "mood", mood == nil {
          mood = .some(try r.null() ? nil : try r.string())
        } else {
          return nil
        }
      }
      guard let expression else { return nil }
      return .answer(expression: expression, language: language ?? nil, mood: mood ?? nil)
    }
    if type == "websearch" {
      var query: String?
      var count: Int??
      while let key = try r.nextKey() {
        if key == "query", query == nil {
          query = try r.string()
        } else if key == "count", count == nil {
          count = .some(try r.null() ? nil : try r.int())
        } else {
          return nil
        }
      }
      guard let query else { return nil }
      return .websearch(query: query, count: count ?? nil)
    }
    return nil
  }

  /// Reads an object member by member through `member` (which returns false for a member it
  /// does not take); false when a member was refused or the value is not an object.
  private static func readObject(
    _ r: inout JSONReader, _ member: (JSONReader.Key, inout JSONReader) throws -> Bool
  ) throws -> Bool {
    guard try r.kind() == .object else { return false }
    try r.enterObject()
    while let key = try r.nextKey() {
      guard try member(key, &r) else { return false }
    }
    return true
  }

  /// A reader over the one-member object `{key: value}`, named like the payload, for the tree
  /// decoder's per-field readers.
  private static func member(_ key: String, _ value: JSON) -> FieldReader {
    FieldReader(JSONObject([(key, value)]), path: "payload")
  }
}
