import SusiHTTPTypes

/// How the connection state machine decided to frame one response.
struct HTTPResponseFraming: Equatable {
  /// Whether the connection stays open afterwards; false adds `Connection: close`.
  var keepAlive: Bool
  /// A HEAD request: headers as for GET, no body.
  var isHeadRequest: Bool
  /// The client spoke HTTP/1.0: no chunked encoding, and keep-alive must be spelled out.
  var isHTTP10: Bool
}

/// Turns responses into bytes. Pure: the date is passed in.
enum HTTPResponseEncoder {
  static let continueResponse: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
  static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)
  static let serviceUnavailable: [UInt8] = Array(
    "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: 29\r\nRetry-After: 1\r\nConnection: close\r\n\r\ntoo many connections; retry\r\n"
      .utf8)
  /// The answer to a plain HTTP request on an HTTPS port, in plain text.
  static let plainRequestOnTLSPort: [UInt8] = Array(
    "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: 44\r\nConnection: close\r\n\r\nthis port speaks HTTPS: use an https:// URL\n"
      .utf8)

  /// Appends a complete response (head and body) to `out`.
  static func encode(
    _ response: HTTPResponse, framing: HTTPResponseFraming, date: String, into out: inout [UInt8]
  ) {
    let status = validStatus(response.status)
    if framing.isHeadRequest && response.bodyStream != nil {
      // The head a GET would get: its body would be streamed, so its length is unknown.
      encodeStreamHead(response, framing: framing, date: date, into: &out)
      return
    }
    let bodyAllowed = !(status == 204 || status == 304)
    var length: Int? = bodyAllowed ? response.body.count : nil
    if framing.isHeadRequest, response.body.isEmpty,
      let declared = response.headers["Content-Length"],
      let declaredLength = Int(declared), declaredLength >= 0
    {
      length = declaredLength
    }
    appendHead(
      status: status, headers: response.headers, contentLength: length, chunked: false,
      framing: framing, date: date, into: &out)
    if bodyAllowed && !framing.isHeadRequest { out.append(contentsOf: response.body) }
  }

  /// Appends the head of a streamed response: chunked for HTTP/1.1, close-delimited for 1.0.
  static func encodeStreamHead(
    _ response: HTTPResponse, framing: HTTPResponseFraming, date: String, into out: inout [UInt8]
  ) {
    appendHead(
      status: validStatus(response.status), headers: response.headers, contentLength: nil,
      chunked: !framing.isHTTP10, framing: framing, date: date, into: &out)
  }

  /// Appends one chunk of a chunked body; `bytes` must not be empty (that would end the body).
  static func encodeChunk(_ bytes: [UInt8], into out: inout [UInt8]) {
    out.append(contentsOf: String(bytes.count, radix: 16).utf8)
    out.append(contentsOf: crlf)
    out.append(contentsOf: bytes)
    out.append(contentsOf: crlf)
  }

  /// The response for a rejected request; always closes the connection.
  static func encodeRejection(_ rejection: HTTPRejection, date: String, into out: inout [UInt8]) {
    var response = HTTPResponse(
      status: rejection.status, contentType: "text/plain; charset=utf-8",
      body: rejection.reason + "\n")
    if let seconds = rejection.retryAfterSeconds {
      response.headers.add("Retry-After", String(seconds))
    }
    encode(
      response,
      framing: HTTPResponseFraming(keepAlive: false, isHeadRequest: false, isHTTP10: false),
      date: date, into: &out)
  }

  private static let crlf: [UInt8] = [HTTPSyntax.cr, HTTPSyntax.lf]

  /// Handlers may only answer with final status codes the client can frame.
  private static func validStatus(_ status: Int) -> Int {
    (200...999).contains(status) ? status : 500
  }

  private static func appendHead(
    status: Int, headers: HTTPHeaders, contentLength: Int?, chunked: Bool,
    framing: HTTPResponseFraming, date: String, into out: inout [UInt8]
  ) {
    out.reserveCapacity(out.count + 128 + headers.fields.count * 32)
    out.append(literal: "HTTP/1.1 ")
    out.append(decimal: status)
    out.append(HTTPSyntax.space)
    out.append(utf8Of: HTTPStatus.reason(status))
    out.append(contentsOf: crlf)
    var hasDate = false
    for field in headers.fields {
      if HTTPHeaders.namesMatch(field.name, "content-length")
        || HTTPHeaders.namesMatch(field.name, "transfer-encoding")
        || HTTPHeaders.namesMatch(field.name, "connection")
      {
        continue
      }
      // A name or value that could break the framing (response splitting) is dropped.
      guard !field.name.isEmpty, field.name.utf8.allSatisfy(HTTPSyntax.isTokenByte),
        field.value.utf8.allSatisfy(HTTPSyntax.isFieldValueByte)
      else { continue }
      if HTTPHeaders.namesMatch(field.name, "date") { hasDate = true }
      out.append(utf8Of: field.name)
      out.append(literal: ": ")
      out.append(utf8Of: field.value)
      out.append(contentsOf: crlf)
    }
    if !hasDate {
      out.append(literal: "Date: ")
      out.append(utf8Of: date)
      out.append(contentsOf: crlf)
    }
    if let contentLength {
      out.append(literal: "Content-Length: ")
      out.append(decimal: contentLength)
      out.append(contentsOf: crlf)
    }
    if chunked { out.append(literal: "Transfer-Encoding: chunked\r\n") }
    if !framing.keepAlive {
      out.append(literal: "Connection: close\r\n")
    } else if framing.isHTTP10 {
      out.append(literal: "Connection: keep-alive\r\n")
    }
    out.append(contentsOf: crlf)
  }

}
