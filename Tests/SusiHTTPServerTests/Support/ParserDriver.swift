import SusiHTTPTypes

@testable import SusiHTTPServer

/// What a parser made of some bytes, in a form tests can compare.
enum ParsedMessage: Equatable {
  case request(method: String, target: String, body: String)
  case rejected(Int)
}

/// Feeds `bytes` to a fresh parser in pieces of `pieceSize` bytes (0 = all at once) and
/// collects every complete request and the rejection, if any.
func parseMessages(
  _ bytes: [UInt8], limits: HTTPLimits = HTTPLimits(), pieceSize: Int = 0
) -> (messages: [ParsedMessage], heads: [HTTPRequestHead], events: [HTTPRequestParser.Event]) {
  var parser = HTTPRequestParser(limits: limits)
  var messages: [ParsedMessage] = []
  var heads: [HTTPRequestHead] = []
  var events: [HTTPRequestParser.Event] = []
  var body: [UInt8] = []
  var offset = 0
  var rejected = false
  while offset < bytes.count && !rejected {
    let end = pieceSize == 0 ? bytes.count : min(bytes.count, offset + pieceSize)
    parser.append(Array(bytes[offset..<end]))
    offset = end
    loop: while true {
      let event = parser.next()
      switch event {
      case .needMoreBytes: break loop
      case .head(let head):
        heads.append(head)
        body = []
      case .body(let piece): body.append(contentsOf: piece)
      case .end:
        guard let head = heads.last else { break }
        messages.append(
          .request(
            method: head.method.text, target: head.target,
            body: String(decoding: body, as: UTF8.self)))
      case .rejected(let rejection):
        messages.append(.rejected(rejection.status))
        rejected = true
        break loop
      }
      if case .body = event {
        if let last = events.last, case .body(let previous) = last {
          events[events.count - 1] = .body(previous + (event.bodyBytes ?? []))
          continue
        }
      }
      events.append(event)
    }
  }
  return (messages, heads, events)
}

func parseMessages(_ text: String, limits: HTTPLimits = HTTPLimits(), pieceSize: Int = 0)
  -> [ParsedMessage]
{
  parseMessages(Array(text.utf8), limits: limits, pieceSize: pieceSize).messages
}

extension HTTPRequestParser.Event {
  var bodyBytes: [UInt8]? {
    if case .body(let bytes) = self { return bytes }
    return nil
  }
}
