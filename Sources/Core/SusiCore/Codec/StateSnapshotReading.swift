public import SusiJSON

// Reading a state in snapshot form straight from its bytes: every start from a snapshot does.
//
// Most of a snapshot is the transcript (up to two thousand chat lines): `readSnapshot` reads it
// entry by entry with a pull reader, its answers as a log record's are read
// (`Event.readAnswers`), and reads every other field as a tree handed to `init(snapshot:)`.
// Whenever the transcript is not exactly what `writeSnapshot` writes (a field it does not know,
// a repeated key, an unexpected type, a key with escapes), it throws, and the caller reads the
// whole state through `init(snapshot:)`: so the result, and every error message, is the tree
// reader's.

extension State {
  /// Reads a state written by `writeSnapshot`, the reader at its object; the same state
  /// `init(snapshot:)` reads from its tree, faster. Throws when the caller must read it that way
  /// instead (see above).
  public static func readSnapshot(_ r: inout JSONReader) throws -> State {
    var (transcript, others) = try r.readObject(pulling: "transcript") {
      try readTranscript(&$0)
    }
    // The tree reader reads the rest; the transcript it is handed is empty.
    others.append(("transcript", .array([])))
    var state = try State(snapshot: FieldReader(JSONObject(others)))
    state.transcript = transcript
    return state
  }

  /// Thrown when the state must be read as a tree.
  private struct Unusual: Error {}

  private static func readTranscript(_ r: inout JSONReader) throws -> [ChatEntry] {
    var entries: [ChatEntry] = []
    try r.enterArray()
    while try r.nextElement() {
      var answers: [AnswerAction] = []
      var at: Timestamp?
      var query: String?
      var seq: Int?
      var skill: String?
      var speaker: ChatEntry.Speaker?
      guard try r.kind() == .object else { throw Unusual() }
      try r.enterObject()
      var members = Event.Members(transcriptMembers)
      while let index = try members.next(&r) {
        switch index {
        case 0:
          if !(try r.null()) {
            guard let read = try Event.readAnswers(&r) else { throw Unusual() }
            answers = read
          }
        case 1:
          let text = try r.stringBytes()
          guard !text.hasEscapes, let t = Timestamp(rfc3339Bytes: text.bytes) else {
            throw Unusual()
          }
          at = t
        case 2: query = try r.string()
        case 3: seq = try r.int()
        case 4: skill = try r.null() ? nil : try r.string()
        default:
          let text = try r.stringBytes()
          if text == "susi" {
            speaker = .susi
          } else if text == "user" {
            speaker = .user
          } else {
            throw Unusual()
          }
        }
      }
      guard !members.refused, let at, let query, let seq, let speaker else { throw Unusual() }
      entries.append(
        ChatEntry(seq: seq, at: at, speaker: speaker, query: query, answers: answers, skill: skill))
    }
    return entries
  }

  /// A transcript entry's members in the order `writeSnapshot` writes them.
  private static let transcriptMembers: [StaticString] = [
    "answers", "at", "query", "seq", "skill", "speaker",
  ]
}
