/// Header fields in the order they arrived; names compare case-insensitively.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
  public struct Field: Sendable, Equatable {
    public var name: String
    public var value: String
    public init(name: String, value: String) {
      self.name = name
      self.value = value
    }
  }

  public private(set) var fields: [Field] = []

  public init() {}
  public init(_ pairs: [(String, String)]) { fields = pairs.map { Field(name: $0.0, value: $0.1) } }
  public init(dictionaryLiteral elements: (String, String)...) { self.init(elements) }

  /// The first value of `name`, or nil.
  public subscript(name: String) -> String? {
    fields.first { Self.namesMatch($0.name, name) }?.value
  }

  /// Every value of `name`, in order.
  public func values(_ name: String) -> [String] {
    fields.filter { Self.namesMatch($0.name, name) }.map(\.value)
  }

  public mutating func add(_ name: String, _ value: String) {
    fields.append(Field(name: name, value: value))
  }

  /// Replaces every field called `name` with one field.
  public mutating func set(_ name: String, _ value: String) {
    fields.removeAll { Self.namesMatch($0.name, name) }
    fields.append(Field(name: name, value: value))
  }

  public mutating func remove(_ name: String) {
    fields.removeAll { Self.namesMatch($0.name, name) }
  }

  /// Whether `name` is present.
  public func contains(_ name: String) -> Bool {
    fields.contains { Self.namesMatch($0.name, name) }
  }

  /// Field names are ASCII tokens, so ASCII case folding is enough and needs no allocation.
  static func namesMatch(_ a: String, _ b: String) -> Bool {
    var left = a.utf8.makeIterator()
    var right = b.utf8.makeIterator()
    while true {
      switch (left.next(), right.next()) {
      case (nil, nil): return true
      case (let x?, let y?):
        if x == y { continue }
        let foldedX = x >= 65 && x <= 90 ? x | 0x20 : x
        let foldedY = y >= 65 && y <= 90 ? y | 0x20 : y
        if foldedX != foldedY { return false }
      default: return false
      }
    }
  }

  public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }
}

/// A complete HTTP/1.1 request, as handed to a handler.
public struct HTTPRequest: Sendable {
  /// The method; a HEAD request arrives as `GET` with `isHead` set (see `HTTPHandler`).
  public var method: String
  /// The request-target in origin form, e.g. `/cms/getSkillList.json?group=All`: exactly as
  /// sent, except that an absolute-form target (`http://host/path`) is reduced to its path and
  /// query, its authority becoming the `Host` field.
  public var target: String
  public var headers: HTTPHeaders
  public var body: [UInt8]
  /// The peer's address (`127.0.0.1`), used for per-host decisions and anonymous identities.
  public var remoteAddress: String
  /// The client sent HEAD: the server sends the headers of the answer, never its body.
  public var isHead: Bool

  public init(
    method: String, target: String, headers: HTTPHeaders = [:], body: [UInt8] = [],
    remoteAddress: String = "127.0.0.1", isHead: Bool = false
  ) {
    self.method = method
    self.target = target
    self.headers = headers
    self.body = body
    self.remoteAddress = remoteAddress
    self.isHead = isHead
  }

  /// The target's path, percent-decoded (`/cms/getSkillList.json`).
  public var path: String {
    let raw =
      target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
    return URLEncodedForm.percentDecode(String(raw), plusIsSpace: false) ?? String(raw)
  }

  /// The target's query string without the `?`, or nil.
  public var query: String? {
    guard let mark = target.firstIndex(of: "?") else { return nil }
    return String(target[target.index(after: mark)...])
  }
}

/// What a handler answers: a status, headers and either a complete `body` or a `bodyStream`
/// that writes the body while it is being sent (see `HTTPResponse+Streaming.swift`).
///
/// The server sets `Content-Length`, `Transfer-Encoding` and `Connection` itself; values a
/// handler puts there are replaced, except that `Connection: close` is honoured.
public struct HTTPResponse: Sendable {
  public var status: Int
  public var headers: HTTPHeaders
  public var body: [UInt8]
  /// When set, the body is produced by this stream (chunked on the wire) and `body` is ignored.
  public var bodyStream: HTTPBodyStream? = nil

  public init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = []) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  public init(status: Int, contentType: String, body: String) {
    self.init(status: status, headers: ["Content-Type": contentType], body: Array(body.utf8))
  }

  /// The standard reason phrase for `status`.
  public var reasonPhrase: String { HTTPStatus.reason(status) }
}

/// Something that answers requests. The server calls it once per request, possibly from
/// several tasks at once. It runs on the server's event-loop threads, so long CPU-bound work
/// belongs in a task of its own; awaiting is fine.
///
/// HEAD works wherever GET does without the handler knowing of it: a HEAD request reaches the
/// handler as `GET` with `isHead` set, and the server sends that answer's status, headers and
/// `Content-Length` without its body (a streamed body is never started).
public protocol HTTPHandler: Sendable {
  func handle(_ request: HTTPRequest) async -> HTTPResponse

  /// Whether `request` may be served on a connection from the reserve.
  ///
  /// Once more than `maxConnections - reservedConnections` connections are open (see
  /// `HTTPLimits`), a new connection is still accepted and read, but each of its requests is
  /// served only when this answers true; any other gets `503` with `Retry-After: 1` and the
  /// connection closes. Use it for what must keep working under load: health checks, an
  /// operator's requests.
  ///
  /// It sees the request head only: `body` is empty, since it is asked before the body is read
  /// (so a refused request costs no body). It runs on an event-loop thread for every request on
  /// a reserve connection, so it must be quick and must not block; it never runs for requests
  /// on regular connections. The default answers false: no request uses the reserve.
  func isPriority(_ request: HTTPRequest) -> Bool
}

extension HTTPHandler {
  /// No request uses the reserve unless the handler says so.
  public func isPriority(_ request: HTTPRequest) -> Bool { false }
}

/// Reason phrases for the status codes we send.
public enum HTTPStatus {
  public static func reason(_ status: Int) -> String {
    switch status {
    case 100: "Continue"
    case 200: "OK"
    case 201: "Created"
    case 202: "Accepted"
    case 204: "No Content"
    case 301: "Moved Permanently"
    case 302: "Found"
    case 303: "See Other"
    case 304: "Not Modified"
    case 400: "Bad Request"
    case 401: "Unauthorized"
    case 403: "Forbidden"
    case 404: "Not Found"
    case 405: "Method Not Allowed"
    case 408: "Request Timeout"
    case 409: "Conflict"
    case 410: "Gone"
    case 411: "Length Required"
    case 413: "Content Too Large"
    case 414: "URI Too Long"
    case 415: "Unsupported Media Type"
    case 417: "Expectation Failed"
    case 422: "Unprocessable Content"
    case 429: "Too Many Requests"
    case 431: "Request Header Fields Too Large"
    case 500: "Internal Server Error"
    case 501: "Not Implemented"
    case 502: "Bad Gateway"
    case 503: "Service Unavailable"
    case 504: "Gateway Timeout"
    case 505: "HTTP Version Not Supported"
    default: "Status \(status)"
    }
  }
}

/// `application/x-www-form-urlencoded` and query strings.
public enum URLEncodedForm {
  /// Decodes `a=1&b=x%20y` into ordered pairs. `+` is a space. A pair with bad percent-encoding
  /// is kept with its raw text.
  public static func decode(_ text: String) -> [(String, String)] {
    text.split(separator: "&", omittingEmptySubsequences: true).map { pair in
      let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      let key = String(parts[0])
      let value = parts.count > 1 ? String(parts[1]) : ""
      return (
        percentDecode(key, plusIsSpace: true) ?? key,
        percentDecode(value, plusIsSpace: true) ?? value
      )
    }
  }

  /// Encodes pairs as a query string, percent-encoding everything but RFC 3986 unreserved
  /// characters (so spaces become `%20` and commas `%2C`).
  public static func encode(_ pairs: [(String, String)]) -> String {
    pairs.map { "\(percentEncode($0.0))=\(percentEncode($0.1))" }.joined(separator: "&")
  }

  public static func percentEncode(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
        UInt8(ascii: "_"), UInt8(ascii: "~"):
        out.unicodeScalars.append(Unicode.Scalar(byte))
      default:
        let hex = Array("0123456789ABCDEF".unicodeScalars)
        out.unicodeScalars.append("%")
        out.unicodeScalars.append(hex[Int(byte >> 4)])
        out.unicodeScalars.append(hex[Int(byte & 0xf)])
      }
    }
    return out
  }

  /// Decodes `%XX` escapes (and `+` when asked); nil on a malformed escape or invalid UTF-8.
  public static func percentDecode(_ text: String, plusIsSpace: Bool) -> String? {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.utf8.count)
    var iterator = text.utf8.makeIterator()
    func hexValue(_ c: UInt8) -> UInt8? {
      switch c {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
      default: nil
      }
    }
    while let c = iterator.next() {
      if c == UInt8(ascii: "%") {
        guard let h = iterator.next().flatMap(hexValue), let l = iterator.next().flatMap(hexValue)
        else { return nil }
        bytes.append(h << 4 | l)
      } else if c == UInt8(ascii: "+") && plusIsSpace {
        bytes.append(UInt8(ascii: " "))
      } else {
        bytes.append(c)
      }
    }
    return String(validating: bytes, as: UTF8.self)
  }
}
