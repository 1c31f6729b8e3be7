import SusiCore
import SusiHTTPClient
import SusiHTTPTypes
import SusiJSON

/// Turns an HTTP reply from a SUSI server into a JSON object, or into the failure it stands for.
///
/// Tolerant where the server is odd and strict where it matters: any `Content-Type`
/// (SUSI answers `application/javascript`), pretty-printed or compact bodies, a byte-order
/// mark, JSONP (`callback({…});`); but an HTML page, a non-object or text that is not JSON
/// is a `badResponse`, and a non-2xx status is an `http` (or `unauthorized`) failure whose
/// message comes from the error page's `<title>`.
enum ReplyReader {
  /// The reply's JSON object.
  static func object(_ response: TransportResponse, endpoint: Endpoint, place: String)
    throws(RunnerFailure) -> JSONObject
  {
    guard (200...299).contains(response.status) else {
      throw failure(status: response, endpoint: endpoint, place: place)
    }
    let (start, end) = try payload(response.body, place: place)
    return try object(response.body, start, end, place: place)
  }

  /// The failure a non-2xx reply stands for.
  static func failure(status response: TransportResponse, endpoint: Endpoint, place: String)
    -> RunnerFailure
  {
    let status = response.status
    let page = String(decoding: response.body.prefix(64 * 1024), as: UTF8.self)
    let said = HTMLText.errorMessage(page)
    if status == 401 && endpoint.access == .user {
      let detail = said.map { " (\($0))" } ?? ""
      return RunnerFailure(
        .unauthorized, status: status,
        "the server no longer accepts this session\(detail); log in again")
    }
    if (300...399).contains(status) {
      let target =
        response.headers["Location"].map { " to \(TransportRequest(url: $0).displayURL)" } ?? ""
      return RunnerFailure(
        .http, status: status,
        "\(place) redirects\(target) (HTTP \(status)); check the server URL (http or https?)")
    }
    if let said { return RunnerFailure(.http, status: status, said) }
    if status == 503 {
      return RunnerFailure(
        .http, status: status, "\(place) is busy or unavailable (HTTP 503); try again later")
    }
    return RunnerFailure(
      .http, status: status, "\(place) answered HTTP \(status) \(HTTPStatus.reason(status))")
  }

  /// Reads a reply's object with one decoder written against `ReplyFields`, handed over for each
  /// reader: from the body's bytes when the field reader reads them (no tree made), else from
  /// the tree, which then gives the result or names what is wrong. An error on the way through
  /// the bytes never shows: the tree decides.
  static func read<Value>(
    _ response: TransportResponse, endpoint: Endpoint, place: String,
    bytes decode: (BytesFieldReader) throws -> Value, tree decodeTree: (FieldReader) throws -> Value
  ) throws(RunnerFailure) -> Value {
    guard (200...299).contains(response.status) else {
      throw failure(status: response, endpoint: endpoint, place: place)
    }
    let body = response.body
    let (start, end) = try payload(body, place: place)
    if end - start <= largestReadFromBytes, let value = fromBytes(body, start, end, decode) {
      return value
    }
    let object = try object(body, start, end, place: place)
    do {
      return try decodeTree(FieldReader(object))
    } catch let failure as RunnerFailure {
      throw failure
    } catch {
      throw RunnerFailure(.badResponse, "the reply from \(place) cannot be read (\(error))")
    }
  }

  /// The largest reply `read` reads from its bytes. A chat's reply is mostly well under 2 KiB; a
  /// larger one is mostly data rows for tables, which become trees anyway, and locating them
  /// first cost more than it saved (`susi-bench runner`'s 10 KiB chat reply: about 1.2x the
  /// instructions through the bytes).
  static let largestReadFromBytes = 4096

  /// What `decode` reads from the object that is the body between `start` and `end`, through a
  /// `BytesFieldReader`; nil when the reader or `decode` gives up.
  static func fromBytes<Value>(
    _ body: [UInt8], _ start: Int, _ end: Int, _ decode: (BytesFieldReader) throws -> Value
  ) -> Value? {
    body.withUnsafeBytes { raw in
      JSONReader.readWholeObject(
        UnsafeRawBufferPointer(rebasing: raw[start..<end]), maximumDepth: Nesting.outside,
        unread: .check, decode)
    }
  }

  /// The reply's object, which is the body between `start` and `end`.
  private static func object(_ body: [UInt8], _ start: Int, _ end: Int, place: String)
    throws(RunnerFailure) -> JSONObject
  {
    let value = try json(body, start, end, place: place)
    guard case .object(let object) = value else {
      throw RunnerFailure(
        .badResponse, "\(place) replied with \(value.kindName) where an object was expected")
    }
    return object
  }

  /// Where the JSON of a reply body lies: past a byte-order mark and whitespace, inside JSONP.
  /// An empty body or an HTML page is refused.
  static func payload(_ body: [UInt8], place: String) throws(RunnerFailure) -> (Int, Int) {
    var start = 0
    var end = body.count
    if body.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
    while start < end, isSpace(body[start]) { start += 1 }
    while end > start, isSpace(body[end - 1]) { end -= 1 }
    guard start < end else { throw RunnerFailure(.badResponse, "\(place) sent an empty reply") }
    if body[start] == UInt8(ascii: "<") {
      throw RunnerFailure(.badResponse, "\(place) sent an HTML page where JSON was expected")
    }
    return jsonpPayload(body, start, end) ?? (start, end)
  }

  /// The body between `start` and `end` parsed as JSON (the JSONP wrapper left out).
  private static func json(_ body: [UInt8], _ start: Int, _ end: Int, place: String)
    throws(RunnerFailure) -> JSON
  {
    do {
      return try body.withUnsafeBytes { raw throws(JSONParseError) in
        // The real server repeats keys in some replies (a skill list by tag across groups).
        // What a reply holds ends up nested deeper in the log, which must read it back.
        try JSONParser.parse(
          UnsafeRawBufferPointer(rebasing: raw[start..<end]), repeatedKeys: .keepLast,
          maximumDepth: Nesting.outside)
      }
    } catch {
      throw RunnerFailure(.badResponse, "the reply from \(place) is not JSON (\(error))")
    }
  }

  /// The bounds of `…` in `name(…)` or `name(…);`, or nil when the body is not JSONP.
  private static func jsonpPayload(_ b: [UInt8], _ start: Int, _ end: Int) -> (Int, Int)? {
    var i = start
    // `/**/` before the name (compared byte by byte: no array made per reply).
    if end - start >= 4, b[start] == UInt8(ascii: "/"), b[start + 1] == UInt8(ascii: "*"),
      b[start + 2] == UInt8(ascii: "*"), b[start + 3] == UInt8(ascii: "/")
    {
      i += 4
    }
    let nameStart = i
    while i < end, isNameByte(b[i]) { i += 1 }
    guard i > nameStart else { return nil }
    while i < end, isSpace(b[i]) { i += 1 }
    guard i < end, b[i] == UInt8(ascii: "(") else { return nil }
    var close = end - 1
    if b[close] == UInt8(ascii: ";") { close -= 1 }
    while close > i, isSpace(b[close]) { close -= 1 }
    guard close > i, b[close] == UInt8(ascii: ")") else { return nil }
    return (i + 1, close)
  }

  private static func isSpace(_ b: UInt8) -> Bool {
    b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D
  }

  private static func isNameByte(_ b: UInt8) -> Bool {
    switch b {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "$"),
      UInt8(ascii: "."):
      true
    default: false
    }
  }

  /// Fails with the server's message when the reply says `accepted: false`.
  static func requireAccepted(_ object: JSONObject, place: String) throws(RunnerFailure) {
    do {
      try requireAccepted(FieldReader(object), place: place)
    } catch {
      // A tree's fields are read without errors: only the refusal comes here.
      throw error as? RunnerFailure ?? RunnerFailure(.badResponse, "\(error)")
    }
  }

  static func requireAccepted(_ reply: some FieldReading, place: String) throws {
    guard case .bool(false)? = try reply.optionalValue("accepted") else { return }
    let message = try reply.optionalValue("message")?.string.map(HTMLText.collapseWhitespace) ?? ""
    throw RunnerFailure(
      .server, message.isEmpty ? "\(place) did not accept the request" : message)
  }
}
