import SusiHTTPTypes

/// Reads a request head line by line as its bytes arrive, checking each line once.
///
/// Offsets are relative to the first byte of the request, so the parser may move its buffer
/// between calls. Everything RFC 9112 asks a server to reject, and every size limit, is decided
/// here; the scanner never looks past the blank line that ends the head.
struct HTTPHeadScanner {
  enum Outcome {
    case needMoreBytes
    /// The head is complete and `length` bytes long.
    case complete(HTTPRequestHead, length: Int)
    case rejected(HTTPRejection)
  }

  private struct RequestLine {
    var method: String
    var target: String
    var version: HTTPVersion
  }

  /// Clients may send a few empty lines before a request (RFC 9112 §2.2); more is garbage.
  private static let maxLeadingEmptyLines = 4

  private var lineStart = 0
  private var scanned = 0
  private var leadingEmptyLines = 0
  private var requestLine: RequestLine?
  private var headerSectionStart = 0
  private var headers = HTTPHeaders()
  private var fieldCount = 0
  private var hostCount = 0
  private var authorizationCount = 0
  private var hostIsValid = true
  private var contentLengthCount = 0
  private var contentLength: Int?
  private var transferCodings: [String] = []
  private var transferEncodingIsMalformed = false
  private var hasTransferEncoding = false
  private var connectionClose = false
  private var connectionKeepAlive = false
  private var expectations: [String] = []

  /// Whether any byte of this request has been looked at yet.
  var hasStarted: Bool { scanned > 0 }

  /// Continues scanning `bytes`, which start at the request's first byte and include everything
  /// scanned before.
  mutating func scan(_ bytes: UnsafeBufferPointer<UInt8>, limits: HTTPLimits) -> Outcome {
    while true {
      guard let lineFeed = bytes.indexOfLineFeed(from: scanned) else {
        scanned = bytes.count
        return checkUnfinishedLine(
          length: bytes.count - lineStart, total: bytes.count, limits: limits)
      }
      scanned = lineFeed + 1
      // The limits come first, exactly as they would have applied had the line arrived in
      // pieces: the outcome must not depend on how the bytes were split.
      if case .rejected(let rejection) = checkUnfinishedLine(
        length: lineFeed - lineStart, total: lineFeed, limits: limits)
      {
        return .rejected(rejection)
      }
      guard lineFeed > lineStart, bytes[lineFeed - 1] == HTTPSyntax.cr else {
        return .rejected(.badRequest("line ends in a bare LF instead of CRLF"))
      }
      let line = UnsafeBufferPointer(rebasing: bytes[lineStart..<(lineFeed - 1)])
      lineStart = lineFeed + 1

      if requestLine == nil {
        if line.isEmpty {
          leadingEmptyLines += 1
          if leadingEmptyLines > Self.maxLeadingEmptyLines {
            return .rejected(.badRequest("too many empty lines before the request line"))
          }
          continue
        }
        if line.count > limits.maxRequestLineBytes {
          return .rejected(requestLineTooLong(limits))
        }
        switch Self.parseRequestLine(line) {
        case .success(let parsed): requestLine = parsed
        case .failure(let rejection): return .rejected(rejection)
        }
        headerSectionStart = lineStart
        continue
      }

      if lineStart - headerSectionStart > limits.maxHeaderBytes {
        return .rejected(headersTooLarge(limits))
      }
      if line.isEmpty {
        return finish(length: lineStart, limits: limits)
      }
      fieldCount += 1
      if fieldCount > limits.maxHeaderCount {
        return .rejected(
          HTTPRejection(status: 431, reason: "more than \(limits.maxHeaderCount) header fields"))
      }
      switch HTTPFieldLine.parse(line) {
      case .success(let field): record(field)
      case .failure(let error): return .rejected(.badRequest(error.reason))
      }
    }
  }

  /// Rejects a line that is already too long before its end has arrived.
  private func checkUnfinishedLine(length: Int, total: Int, limits: HTTPLimits) -> Outcome {
    if requestLine == nil {
      // One byte of slack for the CR of a line of exactly the maximum length.
      if length > limits.maxRequestLineBytes + 1 { return .rejected(requestLineTooLong(limits)) }
    } else if total - headerSectionStart > limits.maxHeaderBytes + 1 {
      return .rejected(headersTooLarge(limits))
    }
    return .needMoreBytes
  }

  private func requestLineTooLong(_ limits: HTTPLimits) -> HTTPRejection {
    HTTPRejection(
      status: 414, reason: "request line longer than \(limits.maxRequestLineBytes) bytes")
  }

  private func headersTooLarge(_ limits: HTTPLimits) -> HTTPRejection {
    HTTPRejection(status: 431, reason: "header section larger than \(limits.maxHeaderBytes) bytes")
  }

  private static func parseRequestLine(_ line: UnsafeBufferPointer<UInt8>) -> Result<
    RequestLine, HTTPRejection
  > {
    let shape = HTTPRejection.badRequest("request line must be METHOD SP TARGET SP HTTP/1.1")
    guard let firstSpace = line.firstIndex(of: HTTPSyntax.space), firstSpace > 0 else {
      return .failure(shape)
    }
    let method = UnsafeBufferPointer(rebasing: line[0..<firstSpace])
    guard method.allSatisfy(HTTPSyntax.isTokenByte) else {
      return .failure(.badRequest("invalid character in the request method"))
    }
    let rest = UnsafeBufferPointer(rebasing: line[(firstSpace + 1)...])
    guard let secondSpace = rest.firstIndex(of: HTTPSyntax.space), secondSpace > 0 else {
      return .failure(shape)
    }
    let target = UnsafeBufferPointer(rebasing: rest[0..<secondSpace])
    guard target.allSatisfy(HTTPSyntax.isTargetByte) else {
      return .failure(.badRequest("invalid character in the request target"))
    }
    let versionBytes = UnsafeBufferPointer(rebasing: rest[(secondSpace + 1)...])
    let version: HTTPVersion
    switch parseVersion(versionBytes) {
    case .success(let parsed): version = parsed
    case .failure(let rejection): return .failure(rejection)
    }
    let methodText = method.decodedString
    let targetText = target.decodedString
    guard isAcceptableTarget(targetText, method: methodText) else {
      return .failure(.badRequest("request target must be a path such as /index.html"))
    }
    return .success(RequestLine(method: methodText, target: targetText, version: version))
  }

  private static func parseVersion(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<
    HTTPVersion, HTTPRejection
  > {
    guard bytes.count == 8, bytes.prefix(5).elementsEqual("HTTP/".utf8),
      bytes[6] == UInt8(ascii: "."),
      let major = HTTPSyntax.hexValue(bytes[5]), major < 10,
      let minor = HTTPSyntax.hexValue(bytes[7]), minor < 10
    else {
      return .failure(.badRequest("request line must end in an HTTP version such as HTTP/1.1"))
    }
    guard major == 1 else {
      return .failure(
        HTTPRejection(status: 505, reason: "only HTTP/1.0 and HTTP/1.1 are supported"))
    }
    // Later 1.x minor versions are compatible with 1.1 (RFC 9110 §2.5).
    return .success(minor == 0 ? .http10 : .http11)
  }

  private static func isAcceptableTarget(_ target: String, method: String) -> Bool {
    if target.hasPrefix("/") { return true }
    if target == "*" { return method == "OPTIONS" }
    let lowered = target.lowercased()
    return lowered.hasPrefix("http://") || lowered.hasPrefix("https://")
  }

  /// Splits `http://authority/path?query` into its authority and the origin form `/path?query`.
  /// RFC 9112 §3.2.2: a server must accept the absolute form, route it by its path, and take the
  /// authority in place of any Host field. nil when the authority is empty or not a plain host
  /// (user info and the like).
  static func originForm(ofAbsolute target: String) -> (authority: String, target: String)? {
    // The request line check let only `http://` and `https://` through.
    guard let colon = target.firstIndex(of: ":") else { return nil }
    let rest = target[colon...].dropFirst(3)
    let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
    let authority = String(rest[..<authorityEnd])
    guard !authority.isEmpty, authority.utf8.allSatisfy(HTTPSyntax.isHostByte) else { return nil }
    let remainder = rest[authorityEnd...]
    return (authority, remainder.hasPrefix("/") ? String(remainder) : "/" + remainder)
  }

  private mutating func record(_ field: HTTPFieldLine) {
    let name = field.name
    if HTTPSyntax.equalsIgnoringCase(name, "host") {
      hostCount += 1
      hostIsValid = hostIsValid && field.value.allSatisfy(HTTPSyntax.isHostByte)
    } else if HTTPSyntax.equalsIgnoringCase(name, "authorization") {
      // Two credentials leave it to each layer to pick one; refuse instead of guessing.
      authorizationCount += 1
    } else if HTTPSyntax.equalsIgnoringCase(name, "content-length") {
      contentLengthCount += 1
      contentLength = Self.parseContentLength(field.value)
    } else if HTTPSyntax.equalsIgnoringCase(name, "transfer-encoding") {
      hasTransferEncoding = true
      recordTransferCodings(field.value)
    } else if HTTPSyntax.equalsIgnoringCase(name, "connection") {
      for token in Self.listElements(field.value) {
        if token == "close" { connectionClose = true }
        if token == "keep-alive" { connectionKeepAlive = true }
      }
    } else if HTTPSyntax.equalsIgnoringCase(name, "expect") {
      expectations.append(field.value.decodedString.lowercased())
    }
    // Room for a usual request's fields at once, and for one a handler in front adds (a
    // request id), instead of growing the list field by field.
    if headers.fields.isEmpty { headers.reserveCapacity(8) }
    headers.add(name.decodedString, Self.text(ofValue: field.value))
  }

  /// A field value as a string; the most common value too long to be stored inline in a string
  /// is not copied into a new one.
  private static func text(ofValue value: UnsafeBufferPointer<UInt8>) -> String {
    let json = "application/json"
    if value.count == 16 && value.elementsEqual(json.utf8) { return json }
    return value.decodedString
  }

  /// `1*DIGIT` and nothing else: no sign, no spaces, no list, no overflow (RFC 9112 §6.3).
  private static func parseContentLength(_ value: UnsafeBufferPointer<UInt8>) -> Int? {
    guard !value.isEmpty else { return nil }
    var result = 0
    for byte in value {
      guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
      let (shifted, overflowA) = result.multipliedReportingOverflow(by: 10)
      let (sum, overflowB) = shifted.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
      if overflowA || overflowB { return nil }
      result = sum
    }
    return result
  }

  private mutating func recordTransferCodings(_ value: UnsafeBufferPointer<UInt8>) {
    let elements = Self.listElements(value)
    if elements.isEmpty { transferEncodingIsMalformed = true }
    for element in elements {
      if element.isEmpty || !element.utf8.allSatisfy(HTTPSyntax.isTokenByte) {
        transferEncodingIsMalformed = true
      }
      transferCodings.append(element)
    }
  }

  /// The lowercased elements of a comma-separated list, without whitespace and empty elements.
  private static func listElements(_ value: UnsafeBufferPointer<UInt8>) -> [String] {
    var elements: [String] = []
    HTTPSyntax.forEachListElement(value) { elements.append($0.decodedString.lowercased()) }
    return elements
  }

  /// Checks the header section as a whole and decides how the body is framed.
  private func finish(length: Int, limits: HTTPLimits) -> Outcome {
    guard let requestLine else { return .rejected(.badRequest("missing request line")) }
    let version = requestLine.version
    if hostCount > 1 { return .rejected(.badRequest("more than one Host header field")) }
    if version == .http11 && hostCount == 0 {
      return .rejected(.badRequest("HTTP/1.1 request without a Host header field"))
    }
    if !hostIsValid { return .rejected(.badRequest("invalid Host header field")) }
    if authorizationCount > 1 {
      return .rejected(.badRequest("more than one Authorization header field"))
    }
    var target = requestLine.target
    var headers = headers
    if !target.hasPrefix("/") && target != "*" {
      guard let origin = Self.originForm(ofAbsolute: target) else {
        return .rejected(.badRequest("invalid authority in an absolute request target"))
      }
      target = origin.target
      headers.set("Host", origin.authority)
    }
    if hasTransferEncoding && contentLengthCount > 0 {
      return .rejected(.badRequest("both Transfer-Encoding and Content-Length"))
    }
    if contentLengthCount > 1 { return .rejected(.badRequest("more than one Content-Length")) }
    if contentLengthCount == 1 && contentLength == nil {
      return .rejected(.badRequest("Content-Length must be a decimal number of bytes"))
    }

    var framing = HTTPBodyFraming.none
    if hasTransferEncoding {
      if version == .http10 {
        return .rejected(.badRequest("Transfer-Encoding in an HTTP/1.0 request"))
      }
      if transferEncodingIsMalformed {
        return .rejected(.badRequest("malformed Transfer-Encoding"))
      }
      if transferCodings.contains(where: { $0 != "chunked" }) {
        return .rejected(
          HTTPRejection(status: 501, reason: "only the chunked transfer coding is supported"))
      }
      if transferCodings.count != 1 {
        return .rejected(.badRequest("chunked applied more than once"))
      }
      framing = .chunked
    } else if let contentLength, contentLength > 0 {
      if contentLength > limits.maxBodyBytes {
        return .rejected(
          HTTPRejection(status: 413, reason: "body larger than \(limits.maxBodyBytes) bytes"))
      }
      framing = .contentLength(contentLength)
    }

    if expectations.contains(where: { $0 != "100-continue" }) {
      return .rejected(HTTPRejection(status: 417, reason: "only Expect: 100-continue is supported"))
    }
    let keepAlive =
      version == .http11 ? !connectionClose : (connectionKeepAlive && !connectionClose)
    let head = HTTPRequestHead(
      method: HTTPMethod(requestLine.method), target: target, version: version, headers: headers,
      bodyFraming: framing, keepAlive: keepAlive,
      expectsContinue: version == .http11 && !expectations.isEmpty)
    return .complete(head, length: length)
  }
}
