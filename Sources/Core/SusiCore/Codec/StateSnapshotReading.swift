public import SusiJSON

// Reading a state in snapshot form straight from its bytes: every start from a snapshot does.
//
// Most of a snapshot is the transcript (up to two thousand chat lines): `readSnapshot` reads it
// entry by entry with a pull reader, its answers as a log record's are read
// (`Event.readAnswers`), and reads every other field as a tree handed to `init(snapshot:)`.
// Whenever the transcript is not exactly what `writeSnapshot` writes (a field it does not know,
// a repeated key, an unexpected type, a key with escapes), it throws, and the caller reads the
// whole state through `init(snapshot:)`: so the result, and every error message, is the tree
// reader's. A long transcript can also be read in runs of whole entries on several threads
// (`transcriptRuns`, `readTranscriptRun`), the rest of the state beside them
// (`readSnapshot(_:transcriptOmittedAt:)`): each of those checks the guess that cut it.

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

  // MARK: The transcript in runs, read side by side

  /// Where the state that `writeSnapshot` wrote into `text` holds its transcript, and the
  /// transcript cut into about `parts` runs of whole entries of similar length, so that threads
  /// can read the runs side by side (`readTranscriptRun`) and one the rest
  /// (`readSnapshot(_:transcriptOmittedAt:)`). Nil when the transcript is not found or too short
  /// to cut.
  ///
  /// Found by the bytes `writeSnapshot` writes around the transcript and between its entries,
  /// not by reading the text: what it returns is a guess that those two readers check, so a
  /// text it guessed wrong about is read whole, the usual way, and gives the same state.
  ///
  /// - Returns: `array`, the transcript from its `[` to past its `]`; `runs`, the text between
  ///   them, one after the other, each cut where a `,` separates two entries.
  public static func transcriptRuns(in text: UnsafeRawBufferPointer, parts: Int) -> (
    array: Range<Int>, runs: [Range<Int>]
  )? {
    guard
      let member = text.firstOccurrence(of: transcriptMember),
      let after = text.lastOccurrence(of: userRatingsMember)
    else { return nil }
    let open = member.upperBound - 1
    let close = after.lowerBound
    guard open < close, close - open > 2 else { return nil }
    var runs: [Range<Int>] = []
    var start = open + 1
    for part in 1..<max(1, parts) {
      let from = max(start, open + (close - open) * part / parts)
      // The end of an entry: its last member, the speaker, then `},{` before the next one.
      guard let cut = text.firstEntryEnd(from: from, before: close) else { break }
      runs.append(start..<cut)
      start = cut + 1
    }
    guard !runs.isEmpty else { return nil }
    runs.append(start..<close)
    return (open..<(close + 1), runs)
  }

  /// Reads a run of transcript entries cut by `transcriptRuns` (`{…},{…}`, no brackets) as
  /// `readSnapshot` reads them where they were cut from: in an array `depth` levels deep (the
  /// nesting limit `maximumDepth` counts those levels). Throws when the run is not exactly whole
  /// entries that `readSnapshot` reads without falling back to a tree.
  public static func readTranscriptRun(
    _ run: UnsafeRawBufferPointer, depth: Int, maximumDepth: Int
  ) throws -> [ChatEntry] {
    var text: [UInt8] = []
    text.reserveCapacity(run.count + 2)
    text.append(UInt8(ascii: "["))
    text.append(contentsOf: run)
    text.append(UInt8(ascii: "]"))
    return try text.withUnsafeBytes { bytes in
      // The run's array is the text's outermost value: `depth - 1` levels less deep.
      var r = JSONReader(bytes, maximumDepth: maximumDepth - (depth - 1))
      let entries = try readTranscript(&r)
      try r.finish()
      return entries
    }
  }

  /// Reads a state written by `writeSnapshot` whose transcript was cut out and replaced by `[]`
  /// at byte `offset` of the reader's text (see `transcriptRuns`): the state with an empty
  /// transcript. Throws when the state's transcript is not that `[]`.
  public static func readSnapshot(_ r: inout JSONReader, transcriptOmittedAt offset: Int) throws
    -> State
  {
    var (_, others) = try r.readObject(pulling: "transcript") { r throws in
      guard r.offset == offset else { throw Unusual() }
      try r.enterArray()
      guard !(try r.nextElement()) else { throw Unusual() }
    }
    others.append(("transcript", .array([])))
    return try State(snapshot: FieldReader(JSONObject(others)))
  }

  private static let transcriptMember = Array(#","transcript":["#.utf8)
  private static let userRatingsMember = Array(#"],"userRatings":["#.utf8)

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

extension UnsafeRawBufferPointer {
  /// The first place `pattern` occurs.
  fileprivate func firstOccurrence(of pattern: [UInt8]) -> Range<Int>? {
    guard let first = pattern.first, count >= pattern.count else { return nil }
    var i = 0
    while i <= count - pattern.count {
      if self[i] == first, matches(pattern, at: i) { return i..<(i + pattern.count) }
      i += 1
    }
    return nil
  }

  /// The last place `pattern` occurs.
  fileprivate func lastOccurrence(of pattern: [UInt8]) -> Range<Int>? {
    guard let first = pattern.first, count >= pattern.count else { return nil }
    var i = count - pattern.count
    while i >= 0 {
      if self[i] == first, matches(pattern, at: i) { return i..<(i + pattern.count) }
      i -= 1
    }
    return nil
  }

  fileprivate func matches(_ pattern: [UInt8], at i: Int) -> Bool {
    for (k, byte) in pattern.enumerated() where self[i + k] != byte { return false }
    return true
  }

  /// The offset of the `,` after the first transcript entry that ends at or after `from` and
  /// before `end`, as `writeSnapshot` ends one: `"speaker":"user"},{` or `…"susi"},{`.
  fileprivate func firstEntryEnd(from: Int, before end: Int) -> Int? {
    let speaker = Array(#""speaker":""#.utf8)
    var i = from
    while i + speaker.count + 7 < end {
      if self[i] == UInt8(ascii: "\""), matches(speaker, at: i) {
        let value = i + speaker.count
        if matches(Array(#"user"},{"#.utf8), at: value)
          || matches(Array(#"susi"},{"#.utf8), at: value)
        {
          return value + 6
        }
      }
      i += 1
    }
    return nil
  }
}
