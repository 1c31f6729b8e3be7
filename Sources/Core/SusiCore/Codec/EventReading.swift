public import SusiJSON

// Reading a log record straight from its bytes: replay and every start decode millions of them.
//
// `Event.read` walks the record with a pull reader and builds the event without a `JSON` tree.
// It reads the envelope field by field, and the chat payloads that make up most of a log
// (`sendMessage`, `messageReceived` and its plain answers) member by member in the order this
// writer writes them; every other payload, and any answer of another kind, it reads by the
// codec's own field rules (`Action.decodeFields`, what `Action.decode` runs on a tree) through a
// `BytesFieldReader` over its bytes.
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
    // Most records are exactly as this writer writes them: their envelope is recognized by its
    // bytes. Any other goes member by member.
    let start = r.position
    if let envelope = writtenEnvelope(&r) {
      if let action = try readAction(envelope.type, &r), try r.nextKey() == nil {
        try r.finish()
        return Event(
          seq: envelope.seq, at: envelope.at, origin: EventOrigin(rawValue: envelope.origin),
          cause: envelope.cause, id: envelope.id, action: action)
      }
      r.restore(start)
    }
    var seen = EnvelopeFields()
    var version = 1
    var type: ActionType?
    // The fields are kept apart and make the event at the end: an event made first and filled in
    // costs a copy and a destruction of a whole event (its action a large enum) per record.
    var seq = 0
    var at = Timestamp(milliseconds: 0)
    var origin = ""
    var requestID: String?
    var cause: Int?
    var id: JSON?
    var idempotencyKey: String?
    var action: Action?
    try r.enterObject()
    // Member i of `envelopeMembers` is the field with raw value 1 << i.
    var members = Members(envelopeMembers)
    while let index = try members.next(&r) {
      let field = EnvelopeFields(rawValue: 1 << index)
      seen.insert(field)
      switch field {
      case .version: version = try r.int()
      case .seq: seq = try r.int()
      case .at:
        let text = try r.stringBytes()
        guard !text.hasEscapes, let t = Timestamp(rfc3339Bytes: text.bytes) else { throw Unusual() }
        at = t
      case .origin: origin = try Self.origin(&r)
      case .requestID: if !(try r.null()) { requestID = try r.string() }
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
    guard !members.refused else { throw Unusual() }
    try r.finish()
    guard version == 1 || version == formatVersion, seen.contains(.required), let type else {
      throw Unusual()
    }
    return Event(
      seq: seq, at: at, origin: EventOrigin(rawValue: origin, requestID: requestID), cause: cause,
      id: id, idempotencyKey: idempotencyKey,
      // No payload member: `{}`.
      action: try action.take() ?? Action.decode(type: type.rawValue, payload: nil))
  }

  /// An envelope as this writer writes it when it has no request id or idempotency key.
  private struct WrittenEnvelope {
    var seq: Int
    var at: Timestamp
    var origin: String
    var cause: Optional<Int>
    var id: Optional<JSON>
    var type: ActionType
  }

  /// The envelope the reader (before the record's `{`) is at, when it is written exactly as
  /// `{"v":2,"seq":N,"at":"…","origin":"…",("cause":N,)("id":…,)"type":"…","payload":` with a
  /// known origin and action type, integers of 1 to 17 digits and an id that is such an integer
  /// or a string of printable ASCII without escapes (a JSON-lines caller's `"q9"`): the reader is
  /// then at the payload. Nil, moving nothing, for any other: the members are then read one by
  /// one, which gives the same event for the same bytes.
  private static func writtenEnvelope(_ r: inout JSONReader) -> WrittenEnvelope? {
    let bytes = r.unreadBytes
    guard let base = bytes.baseAddress else { return nil }
    let end = bytes.count
    var i = 0
    /// Moves past `text` when it comes next.
    func literal(_ text: StaticString) -> Bool {
      let count = text.utf8CodeUnitCount
      guard end &- i >= count, same(base + i, text.utf8Start, count) else { return false }
      i &+= count
      return true
    }
    /// The integer that comes next, as `JSONReader.int()` reads the ones written most often.
    func integer() -> Int? {
      let start = i
      var value = 0
      while i < end, i &- start < 18,
        case let digit = base.load(fromByteOffset: i, as: UInt8.self) &- 0x30,
        digit < 10
      {
        value = value &* 10 &+ Int(digit)
        i &+= 1
      }
      let count = i &- start
      guard count > 0, count < 18, base.load(fromByteOffset: start, as: UInt8.self) != 0x30 else {
        return nil
      }
      return value
    }
    /// The bytes of the string whose opening quote was just passed, when it has no escape.
    func text() -> UnsafeRawBufferPointer? {
      let start = i
      // Eight bytes at a time up to the first that is not plain (a `"`, a `\`, a control
      // character or not ASCII); the bytes from there on one by one.
      while end &- i >= 8 {
        let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
        let special = JSONParser.unplainBytes(word)
        if special == 0 {
          i &+= 8
          continue
        }
        i &+= special.trailingZeroBitCount &>> 3
        break
      }
      while i < end {
        switch base.load(fromByteOffset: i, as: UInt8.self) {
        case UInt8(ascii: "\\"): return nil
        case UInt8(ascii: "\""):
          i &+= 1
          return UnsafeRawBufferPointer(start: base + start, count: i &- 1 &- start)
        default: i &+= 1
        }
      }
      return nil
    }
    guard literal(#"{"v":2,"seq":"#), let seq = integer(), literal(#","at":""#),
      let atText = text(), let at = Timestamp(rfc3339Bytes: atText), literal(#","origin":""#),
      let originText = text()
    else { return nil }
    guard let origin = knownOrigin(originText)?.rawValue else { return nil }
    var cause: Int?
    if literal(#","cause":"#) {
      guard let value = integer() else { return nil }
      cause = value
    }
    var id: JSON?
    if literal(#","id":"#) {
      if literal("\"") {
        guard let idText = text(), isPrintableASCII(idText) else { return nil }
        id = .string(String(decoding: idText, as: UTF8.self))
      } else {
        guard let value = integer() else { return nil }
        id = .int(value)
      }
    }
    guard literal(#","type":""#), let typeText = text(), let type = actionType(typeText),
      literal(#","payload":"#)
    else { return nil }
    // Past the `{` (checking the nesting limit as `enterObject` does), then past the members.
    do {
      try r.enterObject()
    } catch {
      return nil
    }
    r.skip(i &- 1)
    return WrittenEnvelope(seq: seq, at: at, origin: origin, cause: cause, id: id, type: type)
  }

  /// Whether every byte is printable ASCII: then the bytes are a JSON string's value as they are.
  private static func isPrintableASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
    bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
  }

  /// The origin this code names that `name` spells, as the log writes it, or nil. Compared one
  /// by one: a table would be retained and released per record.
  private static func knownOrigin(_ name: UnsafeRawBufferPointer) -> EventOrigin? {
    if holds(name, "runner") { return .runner }
    if holds(name, "cli") { return .cli }
    if holds(name, "jsonl") { return .jsonl }
    if holds(name, "webhook") { return .webhook }
    if holds(name, "web") { return .web }
    if holds(name, "store") { return .store }
    return nil
  }

  /// The origin's name: one this code names without making a string, any other read as one.
  private static func origin(_ r: inout JSONReader) throws -> String {
    let start = r.position
    let text = try r.stringBytes()
    if !text.hasEscapes, let known = knownOrigin(text.bytes) { return known.rawValue }
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
    key.hasEscapes ? nil : actionType(key.bytes)
  }

  /// The action type whose name is exactly `name`, or nil.
  private static func actionType(_ name: UnsafeRawBufferPointer) -> ActionType? {
    // Most of a log.
    if holds(name, "messageReceived") { return .messageReceived }
    if holds(name, "sendMessage") { return .sendMessage }
    guard let base = name.baseAddress, name.count < actionTypesByLength.count else { return nil }
    for candidate in actionTypesByLength[name.count]
    where candidate.name.withUnsafeBytes({
      same($0.baseAddress.unsafelyUnwrapped, base, name.count)
    }) {
      return candidate.type
    }
    return nil
  }

  /// Whether `bytes` are exactly `text`.
  @inline(__always)
  private static func holds(_ bytes: UnsafeRawBufferPointer, _ text: StaticString) -> Bool {
    guard let base = bytes.baseAddress, bytes.count == text.utf8CodeUnitCount else {
      return bytes.isEmpty && text.utf8CodeUnitCount == 0
    }
    return same(base, text.utf8Start, bytes.count)
  }

  /// Whether the `count` bytes at `a` and at `b` are the same, compared eight at a time.
  @inline(__always)
  private static func same(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ count: Int) -> Bool {
    var k = 0
    while count &- k >= 8 {
      guard
        a.loadUnaligned(fromByteOffset: k, as: UInt64.self)
          == b.loadUnaligned(fromByteOffset: k, as: UInt64.self)
      else { return false }
      k &+= 8
    }
    while k < count {
      guard a.load(fromByteOffset: k, as: UInt8.self) == b.load(fromByteOffset: k, as: UInt8.self)
      else { return false }
      k &+= 1
    }
    return true
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

  /// The action of `type` read from the payload the reader is at; nil to use the tree decoder.
  private static func readAction(_ type: ActionType, _ r: inout JSONReader) throws -> Action? {
    switch type {
    case .sendMessage:
      var query: String?
      var language: String?
      guard try r.kind() == .object else { return nil }
      try r.enterObject()
      var members = Members(sendMessageMembers)
      while let index = try members.next(&r) {
        if index == 0 {
          query = try r.string()
        } else {
          language = try r.null() ? nil : try r.string()
        }
      }
      guard !members.refused, let query else { return nil }
      return .sendMessage(Action.SendMessage(query: query, language: language))
    case .messageReceived:
      return try readMessageReceived(&r).map(Action.messageReceived)
    default:
      if try r.null() { return try Action.decode(type: type.rawValue, payload: nil) }
      guard try r.kind() == .object else { return nil }
      var action: Action?
      try r.readFields { action = try Action.decodeFields(type: type, $0) }
      // Moved out, not copied (a copy and a destruction of the action per record).
      return action.take()
    }
  }

  private static func readMessageReceived(_ r: inout JSONReader) throws -> Action.MessageReceived? {
    var query: String?
    var answers: [AnswerAction]?
    var skill: String?
    var planned: [PlannedAnswer]?
    var anonymous: Bool?
    guard try r.kind() == .object else { return nil }
    try r.enterObject()
    var members = Members(messageReceivedMembers)
    while let index = try members.next(&r) {
      switch index {
      case 0: query = try r.string()
      case 1:
        guard let read = try readAnswers(&r) else { return nil }
        answers = read
      case 2: skill = try r.null() ? nil : try r.string()
      case 3:
        // Rare: read through the tree decoder's own reader.
        planned = try readPlanned(member("planned", try r.value()), "planned")
      default: anonymous = try r.null() ? nil : try r.bool()
      }
    }
    guard !members.refused, let query, let answers else { return nil }
    return Action.MessageReceived(
      query: query, answers: answers, skill: skill, planned: planned ?? [],
      anonymous: anonymous)
  }

  /// The answers array; plain answers are read field by field, any other kind by the codec's
  /// field rules over its bytes. Throws, or returns nil, when the tree decoder must read them.
  static func readAnswers(_ r: inout JSONReader) throws -> [AnswerAction]? {
    var answers: [AnswerAction] = []
    try r.enterArray()
    while try r.nextElement() {
      // Most replies carry two answers (an answer and a web search): one allocation, not two.
      if answers.isEmpty { answers.reserveCapacity(2) }
      let start = r.position
      if let answer = try readPlainAnswer(&r) {
        answers.append(answer)
      } else {
        r.restore(start)
        guard try r.kind() == .object else { return nil }
        try r.readFields { answers.append(try AnswerAction(reading: $0)) }
      }
    }
    return answers
  }

  /// An answer of type `answer` or `websearch` written as this writer writes it (type first),
  /// or nil.
  private static func readPlainAnswer(_ r: inout JSONReader) throws -> AnswerAction? {
    try r.enterObject()
    if !r.nextKey(is: "type") {
      guard let first = try r.nextKey(), first == "type" else { return nil }
    }
    let type = try r.stringBytes()
    if type == "answer" {
      var expression: String?
      var language: String?
      var mood: String?
      var members = Members(answerMembers)
      while let index = try members.next(&r) {
        switch index {
        case 0: expression = try r.string()
        case 1: language = try r.null() ? nil : try r.string()
        default: mood = try r.null() ? nil : try r.string()
        }
      }
      guard !members.refused, let expression else { return nil }
      return .answer(expression: expression, language: language, mood: mood)
    }
    if type == "websearch" {
      var query: String?
      var count: Int?
      var members = Members(websearchMembers)
      while let index = try members.next(&r) {
        if index == 0 {
          query = try r.string()
        } else {
          count = try r.null() ? nil : try r.int()
        }
      }
      guard !members.refused, let query else { return nil }
      return .websearch(query: query, count: count)
    }
    if type == "table" { return try readTable(&r) }
    if type == "rss" { return try readFeed(&r) }
    return nil
  }

  /// The rest of a table answer as this writer writes it (`columns`, then `rows` of arrays whose
  /// cells are kept as JSON values), or nil.
  private static func readTable(_ r: inout JSONReader) throws -> AnswerAction? {
    var columns: [TableColumn]?
    var rows: [[JSON]]?
    var members = Members(tableMembers)
    while let index = try members.next(&r) {
      guard try r.kind() == .array else { return nil }
      try r.enterArray()
      if index == 0 {
        var read: [TableColumn] = []
        // A table has a few columns: one allocation, not one at 1, 2 and 4 of them.
        read.reserveCapacity(4)
        while try r.nextElement() {
          guard try r.kind() == .object else { return nil }
          try r.enterObject()
          var key: String?
          var header: String?
          var fields = Members(columnMembers)
          while let field = try fields.next(&r) {
            guard try r.kind() == .string else { return nil }
            if field == 0 { key = try r.string() } else { header = try r.string() }
          }
          guard !fields.refused, let key, let header else { return nil }
          read.append(TableColumn(key: key, header: header))
        }
        columns = read
      } else {
        var read: [[JSON]] = []
        while try r.nextElement() {
          guard try r.kind() == .array else { return nil }
          try r.enterArray()
          var cells: [JSON] = []
          cells.reserveCapacity(columns?.count ?? 0)
          while try r.nextElement() { cells.append(try r.value()) }
          read.append(cells)
        }
        rows = read
      }
    }
    guard !members.refused, let columns, let rows else { return nil }
    return .table(columns: columns, rows: rows)
  }

  /// The rest of an RSS answer as this writer writes it (`items` of title, description and
  /// link, each a string or null), or nil.
  private static func readFeed(_ r: inout JSONReader) throws -> AnswerAction? {
    var items: [FeedItem]?
    var members = Members(feedMembers)
    while try members.next(&r) != nil {
      guard try r.kind() == .array else { return nil }
      var read: [FeedItem] = []
      try r.enterArray()
      while try r.nextElement() {
        guard try r.kind() == .object else { return nil }
        try r.enterObject()
        var texts: [String?] = [nil, nil, nil]
        var fields = Members(feedItemMembers)
        while let field = try fields.next(&r) {
          switch try r.kind() {
          case .string: texts[field] = try r.string()
          case .null: _ = try r.null()
          default: return nil
          }
        }
        guard !fields.refused else { return nil }
        read.append(FeedItem(title: texts[0], description: texts[1], link: texts[2]))
      }
      items = read
    }
    guard !members.refused, let items else { return nil }
    return .rss(items: items)
  }

  private static let sendMessageMembers: [StaticString] = ["query", "language"]
  private static let messageReceivedMembers: [StaticString] = [
    "query", "answers", "skill", "planned", "anonymous",
  ]
  private static let answerMembers: [StaticString] = ["expression", "language", "mood"]
  private static let websearchMembers: [StaticString] = ["query", "count"]
  private static let tableMembers: [StaticString] = ["columns", "rows"]
  private static let columnMembers: [StaticString] = ["key", "header"]
  private static let feedMembers: [StaticString] = ["items"]
  private static let feedItemMembers: [StaticString] = ["title", "description", "link"]

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

  /// A reader over the one-member object `{key: value}`, named like the payload, for the tree
  /// decoder's per-field readers.
  private static func member(_ key: String, _ value: JSON) -> FieldReader {
    FieldReader(JSONObject([(key, value)]), path: "payload")
  }
}
