/// How much of a reply a `HTTPResponseParser` accepts.
public struct HTTPResponseLimits: Sendable, Equatable {
  /// Largest status line plus header section, in bytes (also the bound for chunk trailers).
  public var maximumHeadBytes: Int
  /// Most header fields in one reply.
  public var maximumHeaderCount: Int
  /// Largest body, in bytes.
  public var maximumBodyBytes: Int
  /// What to do with a longer body: fail (`bodyTooLarge`) or deliver the first
  /// `maximumBodyBytes` and end the reply there (the connection is then spent).
  public var truncatesLongBodies: Bool

  public init(
    maximumBodyBytes: Int = 1 << 20, truncatesLongBodies: Bool = false,
    maximumHeadBytes: Int = 64 * 1024, maximumHeaderCount: Int = 256
  ) {
    self.maximumHeadBytes = maximumHeadBytes
    self.maximumHeaderCount = maximumHeaderCount
    self.maximumBodyBytes = max(0, maximumBodyBytes)
    self.truncatesLongBodies = truncatesLongBodies
  }
}

/// The status line and header fields of a reply.
public struct HTTPResponseHead: Sendable, Equatable {
  /// `HTTP/1.1` or `HTTP/1.0`.
  public var version: String
  public var status: Int
  /// The reason phrase as sent (may be empty).
  public var reason: String
  public var headers: HTTPHeaders

  public init(version: String, status: Int, reason: String, headers: HTTPHeaders) {
    self.version = version
    self.status = status
    self.reason = reason
    self.headers = headers
  }
}

/// What a parser found in the bytes so far.
public enum HTTPResponseEvent: Sendable, Equatable {
  /// A head: the final one, or an interim 1xx one when the parser reports those.
  case head(HTTPResponseHead)
  /// The next bytes of the body: a whole chunk of a chunked body, or what arrived of a sized or
  /// close-delimited one.
  case body([UInt8])
  /// The reply is complete. `keepAlive`: the connection can carry another request (false after
  /// a close-delimited or truncated body); `truncated`: the body was cut at the limit.
  case end(keepAlive: Bool, truncated: Bool)
}

/// Why bytes are not a well-formed reply within the limits.
public enum HTTPResponseParseError: Error, Sendable, Equatable {
  /// The bytes break HTTP/1.1's syntax; the reason says where.
  case malformed(String)
  /// The status line and headers (or the trailers) exceed `maximumHeadBytes`.
  case headTooLarge(limit: Int)
  /// More header fields than `maximumHeaderCount`.
  case tooManyHeaders(limit: Int)
  /// The body exceeds `maximumBodyBytes` and the limits do not truncate.
  case bodyTooLarge(limit: Int)
  /// The stream ended before the reply was complete.
  case endedEarly
}

/// A sans-I/O parser of one HTTP/1.1 reply (RFC 9112): status line, header fields, and a body
/// framed by `Content-Length`, chunked transfer coding or the end of the stream, within
/// `HTTPResponseLimits`.
///
/// Feed it what the connection reads (`receive`), tell it when the stream ended
/// (`receiveEnd`), and take events with `next()` until it returns nil (more bytes needed) or
/// `.end`. It does no I/O and keeps no clock, so the caller decides how to wait; bytes after the
/// reply stay in `remainder`.
public struct HTTPResponseParser: Sendable {
  private enum Phase: Sendable {
    case head
    case sized(remaining: Int)
    case chunkSize
    case chunkData(size: Int)
    case trailers(bytes: Int)
    case untilClose
    case done
  }

  public let requestMethod: HTTPMethod
  public let limits: HTTPResponseLimits
  private var buffer: [UInt8] = []
  private var start = 0
  private var phase = Phase.head
  private var ended = false
  private var keepAlive = true
  private var delivered = 0
  private var pendingHead: HTTPResponseHead?
  private var failure: HTTPResponseParseError?
  /// Whether any byte arrived (a reused connection closed before any byte was never answered).
  public private(set) var hasReceivedBytes = false
  /// The final head once parsed.
  public private(set) var head: HTTPResponseHead?
  /// Whether the body is chunked (each `.body` event is then one chunk).
  public private(set) var isChunked = false

  /// Whether interim 1xx heads are returned as `.head` events (the final head follows).
  public let reportsInterimReplies: Bool

  /// A parser for the reply to a request with `requestMethod` (a `HEAD` reply has no body, a
  /// successful `CONNECT` opens a tunnel). Interim replies (`100 Continue`) are skipped unless
  /// `reportsInterimReplies`.
  public init(
    requestMethod: HTTPMethod, limits: HTTPResponseLimits = HTTPResponseLimits(),
    reportsInterimReplies: Bool = false
  ) {
    self.requestMethod = requestMethod
    self.limits = limits
    self.reportsInterimReplies = reportsInterimReplies
  }

  /// Adds bytes read from the connection.
  public mutating func receive(_ bytes: some Sequence<UInt8>) {
    compact()
    let before = buffer.count
    buffer.append(contentsOf: bytes)
    if buffer.count > before { hasReceivedBytes = true }
  }

  /// Adds bytes read from the connection.
  public mutating func receive(_ bytes: UnsafeRawBufferPointer) {
    guard !bytes.isEmpty else { return }
    compact()
    buffer.append(contentsOf: bytes)
    hasReceivedBytes = true
  }

  /// Says the stream ended (the server closed its side).
  public mutating func receiveEnd() { ended = true }

  /// Whether the reply is complete.
  public var isComplete: Bool {
    if case .done = phase { return true }
    return false
  }

  /// The bytes received after the end of the reply (none on a well-behaved connection).
  public var remainder: ArraySlice<UInt8> { isComplete ? buffer[start...] : [] }

  /// The next event, or nil when more bytes (or the end of the stream) are needed.
  public mutating func next() throws(HTTPResponseParseError) -> HTTPResponseEvent? {
    if let failure { throw failure }
    do throws(HTTPResponseParseError) {
      return try step()
    } catch {
      failure = error
      phase = .done
      throw error
    }
  }

  /// Drops consumed bytes from the front of the buffer when that is cheap enough.
  private mutating func compact() {
    if start > 0 && (start == buffer.count || start >= 4096) {
      buffer.removeFirst(start)
      start = 0
    }
  }

  private var available: Int { buffer.count - start }

  private mutating func step() throws(HTTPResponseParseError) -> HTTPResponseEvent? {
    while true {
      switch phase {
      case .head:
        guard let (head, framing) = try parseHead() else {
          if ended { throw .endedEarly }
          return nil
        }
        // Interim replies (100 Continue, 103 Early Hints) precede the real one.
        if (100...199).contains(head.status) && head.status != 101 {
          if reportsInterimReplies { return .head(head) }
          continue
        }
        self.head = head
        try frameBody(head, framing)
        return .head(head)

      case .sized(let remaining):
        if remaining == 0 { return finish(truncated: false) }
        let room = limits.maximumBodyBytes - delivered
        if room == 0 { return finish(truncated: true) }
        guard available > 0 else {
          if ended { throw .endedEarly }
          return nil
        }
        let count = min(available, remaining, room)
        phase = .sized(remaining: remaining - count)
        return .body(take(count))

      case .untilClose:
        keepAlive = false
        if available > 0 {
          let room = limits.maximumBodyBytes - delivered
          if available > room && !limits.truncatesLongBodies {
            throw .bodyTooLarge(limit: limits.maximumBodyBytes)
          }
          if room == 0 { return finish(truncated: true) }
          return .body(take(min(available, room)))
        }
        if ended { return finish(truncated: false) }
        return nil

      case .chunkSize:
        guard let line = try takeLine(limit: 1024, what: "chunk size line") else {
          if ended { throw .endedEarly }
          return nil
        }
        let size = try Self.chunkSize(line)
        if size == 0 {
          phase = .trailers(bytes: 0)
          continue
        }
        if delivered + size > limits.maximumBodyBytes && !limits.truncatesLongBodies {
          throw .bodyTooLarge(limit: limits.maximumBodyBytes)
        }
        phase = .chunkData(size: size)

      case .chunkData(let size):
        let room = limits.maximumBodyBytes - delivered
        if size > room {
          // Only when truncating: deliver what fits once it is here, then stop reading.
          if room == 0 { return finish(truncated: true) }
          guard available >= room else {
            if ended { throw .endedEarly }
            return nil
          }
          phase = .chunkData(size: size - room)
          return .body(take(room))
        }
        guard available >= size + 2 else {
          if ended { throw .endedEarly }
          return nil
        }
        let data = take(size)
        guard buffer[start] == HTTPSyntax.cr, buffer[start + 1] == HTTPSyntax.lf else {
          throw .malformed("a chunk does not end with CRLF")
        }
        start += 2
        phase = .chunkSize
        return .body(data)

      case .trailers(let bytes):
        guard let line = try takeLine(limit: limits.maximumHeadBytes, what: "trailer section")
        else {
          if ended { throw .endedEarly }
          return nil
        }
        if line.isEmpty { return finish(truncated: false) }
        let total = bytes + line.count + 2
        guard total <= limits.maximumHeadBytes else {
          throw .headTooLarge(limit: limits.maximumHeadBytes)
        }
        try line.withUnsafeBufferPointer { raw throws(HTTPResponseParseError) in
          if case .failure(let error) = HTTPFieldLine.parse(raw) {
            throw .malformed("a trailer field: \(error.reason)")
          }
        }
        phase = .trailers(bytes: total)

      case .done:
        return nil
      }
    }
  }

  private mutating func finish(truncated: Bool) -> HTTPResponseEvent {
    phase = .done
    return .end(keepAlive: keepAlive && !truncated, truncated: truncated)
  }

  private mutating func take(_ count: Int) -> [UInt8] {
    let bytes = Array(buffer[start..<start + count])
    start += count
    delivered += count
    return bytes
  }

  /// The next line without its line ending (CRLF, or a bare LF as RFC 9112 §2.2 allows), or
  /// nil when it has not fully arrived.
  private mutating func takeLine(limit: Int, what: String) throws(HTTPResponseParseError)
    -> [UInt8]?
  {
    guard let lf = buffer[start...].firstIndex(of: HTTPSyntax.lf) else {
      if available > limit { throw .malformed("the \(what) is longer than \(limit) bytes") }
      return nil
    }
    var end = lf
    if end > start && buffer[end - 1] == HTTPSyntax.cr { end -= 1 }
    let line = Array(buffer[start..<end])
    start = lf + 1
    return line
  }

  /// The status line and fields once the blank line after them has arrived.
  private mutating func parseHead() throws(HTTPResponseParseError) -> (
    HTTPResponseHead, Framing
  )? {
    // Find the empty line that ends the head before consuming anything, line by line.
    var lines = 0
    let headEnd = buffer.withUnsafeBufferPointer { all -> Int? in
      var lineStart = start
      while let lineFeed = all.indexOfLineFeed(from: lineStart) {
        lines += 1
        let length = lineFeed - lineStart
        if length == 0 || (length == 1 && all[lineStart] == HTTPSyntax.cr) { return lineFeed + 1 }
        lineStart = lineFeed + 1
      }
      return nil
    }
    guard let headEnd else {
      if available > limits.maximumHeadBytes { throw .headTooLarge(limit: limits.maximumHeadBytes) }
      return nil
    }
    guard headEnd - start <= limits.maximumHeadBytes else {
      throw .headTooLarge(limit: limits.maximumHeadBytes)
    }
    // The head is read in place: no line is copied out of the buffer.
    let (head, framing) = try buffer.withUnsafeBufferPointer { all throws(HTTPResponseParseError) in
      try Self.parseHead(
        UnsafeBufferPointer(rebasing: all[start..<headEnd]), lines: lines, limits: limits)
    }
    start = headEnd
    return (head, framing)
  }

  /// The status line and fields of a complete head (`bytes` ends with its blank line, and has
  /// `lines` lines counting that one), and what the fields say about the body's framing.
  private static func parseHead(
    _ bytes: UnsafeBufferPointer<UInt8>, lines: Int, limits: HTTPResponseLimits
  ) throws(HTTPResponseParseError) -> (HTTPResponseHead, Framing) {
    var lineStart = 0
    /// The next line without its line ending (CRLF, or a bare LF as RFC 9112 §2.2 allows).
    func nextLine() -> UnsafeBufferPointer<UInt8> {
      let lf = bytes.indexOfLineFeed(from: lineStart) ?? bytes.count
      var end = lf
      if end > lineStart && bytes[end - 1] == HTTPSyntax.cr { end -= 1 }
      let line = UnsafeBufferPointer(rebasing: bytes[lineStart..<end])
      lineStart = lf + 1
      return line
    }
    var head = try parseStatusLine(nextLine())
    // One field per line between the status line and the blank line: room for them at once.
    head.headers.reserveCapacity(min(max(0, lines - 2), limits.maximumHeaderCount))
    var framing = Framing()
    var count = 0
    while lineStart < bytes.count {
      let line = nextLine()
      if line.isEmpty { break }
      count += 1
      guard count <= limits.maximumHeaderCount else {
        throw .tooManyHeaders(limit: limits.maximumHeaderCount)
      }
      switch HTTPFieldLine.parse(line) {
      case .success(let field):
        framing.record(field)
        head.headers.add(field.name.decodedString, field.value.decodedString)
      case .failure(let error): throw .malformed("a header field: \(error.reason)")
      }
    }
    return (head, framing)
  }

  private static func parseStatusLine(_ line: UnsafeBufferPointer<UInt8>)
    throws(HTTPResponseParseError) -> HTTPResponseHead
  {
    // HTTP-version SP 3DIGIT SP [reason-phrase]; a missing SP before an empty reason is taken.
    let digit = UInt8(ascii: "0")...UInt8(ascii: "9")
    let prefix: StaticString = "HTTP/1."
    let prefixBytes = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
    guard line.count >= 12, line.prefix(7).elementsEqual(prefixBytes), digit.contains(line[7]),
      line[8] == HTTPSyntax.space, digit.contains(line[9]), digit.contains(line[10]),
      digit.contains(line[11]), line.count == 12 || line[12] == HTTPSyntax.space
    else {
      throw .malformed(
        "the status line is not HTTP/1.x: \(String(decoding: line.prefix(40), as: UTF8.self))")
    }
    let status = line[9...11].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    guard status >= 100 else { throw .malformed("the status \(status) does not exist") }
    let reason = line.count > 13 ? String(decoding: line[13...], as: UTF8.self) : ""
    // The two versions there are, as constants; any other is spelled out.
    let version =
      switch line[7] {
      case UInt8(ascii: "1"): "HTTP/1.1"
      case UInt8(ascii: "0"): "HTTP/1.0"
      default: String(decoding: line[0..<8], as: UTF8.self)
      }
    return HTTPResponseHead(
      version: version, status: status, reason: reason, headers: HTTPHeaders())
  }

  /// Decides how the body is framed (RFC 9112 §6.3) and whether the connection is kept.
  private mutating func frameBody(_ head: HTTPResponseHead, _ framing: Framing)
    throws(HTTPResponseParseError)
  {
    let status = head.status
    // HTTP/1.1 keeps the connection unless told to close it; any other version only when told
    // to keep it.
    let keptByDefault = head.version == "HTTP/1.1"
    keepAlive =
      status != 101
      && (keptByDefault ? !framing.connectionClose : framing.connectionKeepAlive)
    if requestMethod == .head || status == 204 || status == 304 || status == 101
      || (requestMethod == .connect && (200...299).contains(status))
    {
      phase = .sized(remaining: 0)
      return
    }
    if framing.namesTransferCodings {
      if framing.lastCodingIsChunked {
        // A length next to chunked is an attack or a mistake: the connection is not reused.
        if framing.hasContentLengthField { keepAlive = false }
        isChunked = true
        phase = .chunkSize
      } else {
        phase = .untilClose
      }
      return
    }
    switch framing.contentLength {
    case .absent:
      phase = .untilClose
    case .malformed:
      throw .malformed("the Content-Length is not one number")
    case .length(let length):
      if length > limits.maximumBodyBytes && !limits.truncatesLongBodies {
        throw .bodyTooLarge(limit: limits.maximumBodyBytes)
      }
      phase = .sized(remaining: length)
    }
  }

  /// What a head's fields say about its body's framing and the connection, gathered from each
  /// field's bytes as it is parsed: no field is looked up again, and no list is made of strings.
  struct Framing {
    enum ContentLength {
      case absent
      /// Every element of every Content-Length field names this number.
      case length(Int)
      /// An element is not a number of at most 18 digits, or two elements differ.
      case malformed
    }
    var connectionClose = false
    var connectionKeepAlive = false
    var namesTransferCodings = false
    var lastCodingIsChunked = false
    var hasContentLengthField = false
    var contentLength = ContentLength.absent

    mutating func record(_ field: HTTPFieldLine) {
      let name = field.name
      if HTTPSyntax.equalsIgnoringCase(name, "content-length") {
        hasContentLengthField = true
        HTTPSyntax.forEachListElement(field.value) { element in recordLength(element) }
      } else if HTTPSyntax.equalsIgnoringCase(name, "transfer-encoding") {
        HTTPSyntax.forEachListElement(field.value) { coding in
          namesTransferCodings = true
          lastCodingIsChunked = HTTPSyntax.equalsIgnoringCase(coding, "chunked")
        }
      } else if HTTPSyntax.equalsIgnoringCase(name, "connection") {
        HTTPSyntax.forEachListElement(field.value) { option in
          if HTTPSyntax.equalsIgnoringCase(option, "close") { connectionClose = true }
          if HTTPSyntax.equalsIgnoringCase(option, "keep-alive") { connectionKeepAlive = true }
        }
      }
    }

    private mutating func recordLength(_ element: UnsafeBufferPointer<UInt8>) {
      var length = 0
      for byte in element {
        let digit = byte &- UInt8(ascii: "0")
        guard digit < 10, element.count <= 18 else {
          contentLength = .malformed
          return
        }
        length = length * 10 + Int(digit)
      }
      switch contentLength {
      case .absent: contentLength = .length(length)
      case .length(let first) where first != length: contentLength = .malformed
      case .length, .malformed: break
      }
    }
  }

  /// The size of a chunk from its size line (`1a;name=value`).
  private static func chunkSize(_ line: [UInt8]) throws(HTTPResponseParseError) -> Int {
    var size = 0
    var digits = 0
    for byte in line {
      guard let value = HTTPSyntax.hexValue(byte) else {
        guard digits > 0,
          byte == UInt8(ascii: ";") || byte == HTTPSyntax.space
            || byte == HTTPSyntax.tab
        else { throw .malformed("a chunk size is not hexadecimal") }
        break
      }
      digits += 1
      guard digits <= 15 else { throw .malformed("a chunk size has more than 15 digits") }
      size = size * 16 + value
    }
    guard digits > 0 else { throw .malformed("a chunk size is missing") }
    return size
  }
}

extension HTTPResponseParser {
  /// A whole reply, with the body put together.
  public struct Response: Sendable, Equatable {
    public var head: HTTPResponseHead
    public var body: [UInt8]
    /// The size of each chunk of a chunked body, in order (empty otherwise).
    public var chunkSizes: [Int]
    /// Whether the connection can carry another request.
    public var keepAlive: Bool
    /// Whether the body was cut at the limit.
    public var truncated: Bool
  }

  /// Takes events until the reply is complete: the whole reply, or nil when more bytes (or the
  /// end of the stream) are needed. Call it again after each `receive`; nothing is lost.
  public mutating func nextResponse(into partial: inout Response?) throws(HTTPResponseParseError)
    -> Response?
  {
    while let event = try next() {
      switch event {
      case .head(let head):
        partial = Response(head: head, body: [], chunkSizes: [], keepAlive: false, truncated: false)
      case .body(let bytes):
        // The first part becomes the body as it is (a sized body comes in one part when it
        // has all arrived): no second copy.
        if partial?.body.isEmpty == true {
          partial?.body = bytes
        } else {
          partial?.body.append(contentsOf: bytes)
        }
        if isChunked { partial?.chunkSizes.append(bytes.count) }
      case .end(let keepAlive, let truncated):
        partial?.keepAlive = keepAlive
        partial?.truncated = truncated
        return partial
      }
    }
    return nil
  }
}
