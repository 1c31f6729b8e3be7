import SusiCore
import SusiRunner

/// A second property checked for an input from outside: read straight from its bytes, as a
/// `chat.json` or `memory.json` reply or as an intent line, it gives what its tree gives. The
/// bytes readers may give up (the tree then decides), but never give something else.
public enum ReaderAgreement {
  public static func check(_ input: [UInt8]) throws(RecordRoundTrip.Problem) {
    if let difference = ReplyDecoding.disagreement(input) {
      throw RecordRoundTrip.Problem("the reply readers disagree: \(difference)")
    }
    if let difference = input.withUnsafeBytes({ IntentEnvelope.disagreement($0) }) {
      throw RecordRoundTrip.Problem("the intent readers disagree: \(difference)")
    }
  }
}
