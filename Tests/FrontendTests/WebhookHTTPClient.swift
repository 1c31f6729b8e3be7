import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A small blocking HTTP/1.1 client over one keep-alive connection to 127.0.0.1, for tests that
/// talk to a real server. It blocks, so it runs on threads of its own (`onThread`), never on the
/// tasks the server needs.
struct WebhookHTTPClient {
  struct Response {
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8]

    func header(_ name: String) -> String? {
      headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
    var text: String { String(decoding: body, as: UTF8.self) }
  }

  let port: Int
  private var fd: Int32 = -1
  private var pending: [UInt8] = []

  init(port: Int) {
    self.port = port
    connect()
  }

  private mutating func connect() {
    fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var one: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    var timeout = timeval(tv_sec: 20, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let ok = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    if ok != 0 {
      Glibc.close(fd)
      fd = -1
    }
    pending = []
  }

  func close() { if fd >= 0 { Glibc.close(fd) } }

  /// Sends one request and reads its response (reconnecting once when the server had closed
  /// the connection); nil when no response came.
  mutating func send(
    _ method: String, _ target: String, headers: [(String, String)] = [], body: String = ""
  )
    -> Response?
  {
    var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
    for (name, value) in headers { head += "\(name): \(value)\r\n" }
    if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.utf8.count)\r\n" }
    head += "\r\n"
    let bytes = Array((head + body).utf8)
    for _ in 0..<2 {
      if fd < 0 { connect() }
      if let response = exchange(bytes) { return response }
      close()
      fd = -1
    }
    return nil
  }

  private mutating func exchange(_ bytes: [UInt8]) -> Response? {
    var sent = 0
    while sent < bytes.count {
      let n = bytes.withUnsafeBytes {
        Glibc.send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL))
      }
      if n <= 0 { return nil }
      sent += n
    }
    var headerEnd: Int?
    while true {
      headerEnd = Self.find([13, 10, 13, 10], in: pending)
      if headerEnd != nil { break }
      guard read() else { return nil }
    }
    let head = String(decoding: pending[..<headerEnd!], as: UTF8.self)
    var lines = head.components(separatedBy: "\r\n")
    let statusLine = lines.removeFirst()
    guard let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") else {
      return nil
    }
    var headers: [(String, String)] = []
    for line in lines {
      guard let colon = line.firstIndex(of: ":") else { continue }
      headers.append(
        (
          String(line[..<colon]),
          line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        ))
    }
    let length = Int(headers.first { $0.0.lowercased() == "content-length" }?.1 ?? "0") ?? 0
    let start = headerEnd! + 4
    while pending.count < start + length {
      guard read() else { return nil }
    }
    let body = Array(pending[start..<(start + length)])
    pending.removeFirst(start + length)
    if headers.contains(where: { $0.0.lowercased() == "connection" && $0.1.lowercased() == "close" }
    ) {
      close()
      fd = -1
    }
    return Response(status: status, headers: headers, body: body)
  }

  private mutating func read() -> Bool {
    var buffer = [UInt8](repeating: 0, count: 16 << 10)
    let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
    guard n > 0 else { return false }
    pending.append(contentsOf: buffer[..<n])
    return true
  }

  static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
    guard haystack.count >= needle.count else { return nil }
    for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] {
      if haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
    }
    return nil
  }
}
