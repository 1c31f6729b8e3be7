import SusiRunner

/// A second property checked for an input from outside: read as a `chat.json` or a
/// `memory.json` reply straight from its bytes, it gives what its tree gives. The bytes reader
/// may give up (the runner then reads the tree), but never gives something else.
public enum ReaderAgreement {
  public static func check(_ input: [UInt8]) throws(RecordRoundTrip.Problem) {
    if let difference = ReplyDecoding.disagreement(input) {
      throw RecordRoundTrip.Problem("the readers disagree: \(difference)")
    }
  }
}
