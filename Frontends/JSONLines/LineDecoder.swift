import SusiCore
import SusiJSON
import Synchronization

/// What one input line asks for.
enum DecodedLine: Sendable {
  /// An empty or all-whitespace line: ignored.
  case blank
  /// An intent to send, with the caller's correlation id and the line's number.
  case intent(Action, id: JSON?, line: Int)
  /// The line is refused; nothing is sent.
  case refused(JSONLinesError)
}

/// Turns input lines into intents, strictly: anything that is not exactly an intent in the
/// documented shape is refused with an error saying what is wrong.
enum LineDecoder {

  static func decode(_ line: InputLine, maximumLineLength: Int, allowsAdministration: Bool = false)
    -> DecodedLine
  {
    switch line.content {
    case .tooLong(let length):
      return .refused(
        JSONLinesError(
          .lineTooLong,
          "the line is \(length) bytes long, over the limit of \(maximumLineLength); it was skipped",
          line: line.number))
    case .text(let bytes):
      return bytes.withUnsafeBytes {
        decode($0, number: line.number, allowsAdministration: allowsAdministration)
      }
    }
  }

  static func decode(_ raw: UnsafeRawBufferPointer, number: Int, allowsAdministration: Bool = false)
    -> DecodedLine
  {
    var bytes = raw
    if let last = bytes.last, last == UInt8(ascii: "\r") {
      bytes = UnsafeRawBufferPointer(rebasing: bytes.dropLast())
    }
    if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return .blank }
    do {
      let envelope = try IntentEnvelope.decode(
        bytes,
        accessChanges: allowsAdministration
          ? .recordedAs(actor: AccessControl.localOperator, frontend: "susi jsonl")
          : .refused(hint: "susi jsonl takes it only when started with --allow-admin"))
      return .intent(envelope.action, id: envelope.id, line: number)
    } catch {
      let message =
        switch error.code {
        case .invalidJSON, .invalidUTF8: "the line is " + error.message
        default: error.message
        }
      return .refused(JSONLinesError(error.code, message, id: error.id, line: number))
    }
  }
}
