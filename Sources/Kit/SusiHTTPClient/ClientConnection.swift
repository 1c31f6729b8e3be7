import SusiHTTPTypes
import SusiTLS
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// One TCP connection to an HTTP/1.1 server, used by one exchange at a time with blocking
/// calls: every wait is a `poll` with a real timeout, so a silent server costs no CPU.
///
/// For `https://` a `TLSSession` sits between the socket and the HTTP reading and writing: the
/// connection moves ciphertext between the two and waits in `poll` whenever TLS needs more.
final class ClientConnection: @unchecked Sendable {
  // Unchecked: `buffer`, `exchanges` and `tls` are only touched by the one exchange that holds
  // the connection (the pool hands it to one holder at a time); `fd` never changes.
  let fd: Int32
  let poolKey: String
  /// Bytes read past the end of the previous reply (normally none).
  private var buffer: [UInt8] = []
  private var bufferStart = 0
  /// Replies read on this connection; more than zero means it was reused.
  private(set) var exchanges = 0
  /// When it went back to the pool, in monotonic seconds.
  var idleSince = 0.0
  /// TLS over the socket (`https://`), once `startTLS` began it.
  private(set) var tls: TLSSession?

  private init(fd: Int32, poolKey: String) {
    self.fd = fd
    self.poolKey = poolKey
  }

  deinit { close(fd) }

  /// Connects to the first of `addresses` that answers within `deadline`.
  static func open(
    to addresses: [SocketAddress], poolKey: String, deadline: Deadline, cancellation: Cancellation
  ) throws(TransportError) -> ClientConnection {
    var lastError = TransportError.cannotConnect("the connection was refused")
    for address in addresses {
      let family = address.bytes.count == 4 ? AF_INET : AF_INET6
      let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
      guard fd >= 0 else { throw .cannotConnect("no socket could be opened") }
      let connection = ClientConnection(fd: fd, poolKey: poolKey)
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
      var one: Int32 = 1
      setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
      guard cancellation.attach(fd) else { throw .cancelled }
      // The socket must outlive the cancellation's hold on its number: once closed, the number
      // can name someone else's socket.
      defer { withExtendedLifetime(connection) { cancellation.detach() } }
      do throws(TransportError) {
        try connection.connect(address, deadline: deadline, cancellation: cancellation)
        return connection
      } catch {
        if case .cannotConnect = error {
          lastError = error
          continue
        }
        throw error
      }
    }
    throw lastError
  }

  private func connect(_ address: SocketAddress, deadline: Deadline, cancellation: Cancellation)
    throws(TransportError)
  {
    let result: Int32
    if address.bytes.count == 4 {
      var v4 = sockaddr_in()
      v4.sin_family = sa_family_t(AF_INET)
      v4.sin_port = address.port.bigEndian
      withUnsafeMutableBytes(of: &v4.sin_addr) { $0.copyBytes(from: address.bytes) }
      result = withUnsafePointer(to: &v4) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
    } else {
      var v6 = sockaddr_in6()
      v6.sin6_family = sa_family_t(AF_INET6)
      v6.sin6_port = address.port.bigEndian
      withUnsafeMutableBytes(of: &v6.sin6_addr) { $0.copyBytes(from: address.bytes) }
      result = withUnsafePointer(to: &v6) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
        }
      }
    }
    if result == 0 { return }
    guard errno == EINPROGRESS else { throw .cannotConnect("the connection was refused") }
    try wait(for: Int16(POLLOUT), deadline: deadline, cancellation: cancellation, sent: false)
    var error: Int32 = 0
    var length = socklen_t(MemoryLayout<Int32>.size)
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
    guard error == 0 else { throw .cannotConnect("the connection was refused") }
  }

  /// Waits until the socket is ready for `events`, the deadline passes (`.timedOut`, or
  /// `.cannotConnect` while connecting) or the exchange is cancelled.
  private func wait(for events: Int16, deadline: Deadline, cancellation: Cancellation, sent: Bool)
    throws(TransportError)
  {
    while true {
      if cancellation.isCancelled { throw .cancelled }
      let milliseconds = deadline.remainingMilliseconds()
      var entry = pollfd(fd: fd, events: events, revents: 0)
      let ready = milliseconds > 0 ? poll(&entry, 1, milliseconds) : 0
      if cancellation.isCancelled { throw .cancelled }
      if ready > 0 || (ready < 0 && errno != EINTR) { return }
      if ready == 0 {
        throw sent ? .timedOut : .cannotConnect("the server did not accept the connection in time")
      }
    }
  }

  /// Whether the idle connection can take another request: nothing to read (no close, no
  /// stray bytes) and no error.
  var isUsableIdle: Bool {
    guard bufferStart == buffer.count else { return false }
    var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    guard poll(&entry, 1, 0) > 0 else { return true }
    guard let tls, entry.revents & Int16(POLLIN) != 0 else { return false }
    // A TLS server may send records of its own between replies (session tickets): they are
    // no reply, and the connection stays usable unless they carry data or a close.
    var chunk = [UInt8](repeating: 0, count: 16 * 1024)
    while true {
      let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if n > 0 {
        let outcome = chunk.withUnsafeBytes { raw in
          Result { () throws(TLSFailure) in
            try tls.received(UnsafeRawBufferPointer(rebasing: raw[0..<n]))
          }
        }
        guard case .success = outcome else { return false }
        continue
      }
      if n < 0 && (errno == EAGAIN || errno == EINTR) { break }
      return false
    }
    let result = chunk.withUnsafeMutableBytes { raw in
      Result { () throws(TLSFailure) in try tls.read(into: raw) }
    }
    return (try? result.get()) == .needsInput && tls.pendingOutput == 0
  }

  // MARK: - Proxy tunnel

  /// Asks the proxy this connection reaches to open a tunnel to `authority` (`host:port`);
  /// afterwards the connection carries bytes to that server as if connected to it.
  func tunnel(
    to authority: String, proxy: ProxySettings.Proxy, deadline: Deadline,
    cancellation: Cancellation
  ) throws(TransportError) {
    var head = "CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n"
    if let authorization = proxy.authorization {
      head += "Proxy-Authorization: \(authorization)\r\n"
    }
    head += "\r\n"
    try sendRaw(Array(head.utf8), deadline: deadline, cancellation: cancellation)
    let (response, _) = try readResponse(
      method: "CONNECT", limits: ResponseLimits(maximumBodyBytes: 64 * 1024, truncates: true),
      deadline: deadline, cancellation: cancellation)
    exchanges = 0
    switch response.status {
    case 200...299:
      guard bufferStart == buffer.count else {
        throw .cannotConnect("the proxy \(proxy.display) sent bytes before the tunnel opened")
      }
    case 407:
      throw .cannotConnect(
        "the proxy \(proxy.display) asks for credentials (HTTP 407); give them in the proxy URL,"
          + " http://USER:PASSWORD@\(proxy.display)")
    default:
      throw .cannotConnect(
        "the proxy \(proxy.display) refused a tunnel to \(authority) (HTTP \(response.status));"
          + " set NO_PROXY to reach it directly, or use another proxy")
    }
  }

  // MARK: - TLS

  /// Runs the TLS handshake of `session` over this connection (nothing of the request is sent
  /// yet); the session then carries every byte.
  func startTLS(_ session: TLSSession, deadline: Deadline, cancellation: Cancellation)
    throws(TransportError)
  {
    tls = session
    while true {
      let progress: TLSSession.Progress
      do throws(TLSFailure) {
        progress = try session.handshake()
      } catch {
        // The alert that tells the server why, when the socket still takes it.
        try? sendRaw(session.takeOutput(), deadline: deadline, cancellation: cancellation)
        throw .tls(error)
      }
      try sendRaw(session.takeOutput(), deadline: deadline, cancellation: cancellation)
      if progress == .complete { return }
      do throws(TransportError) {
        try receiveCiphertext(session, deadline: deadline, cancellation: cancellation, sent: false)
      } catch {
        switch error {
        case .cannotConnect:
          throw .cannotConnect("the server did not finish the TLS handshake in time")
        case .connectionLost:
          throw .tls(
            TLSFailure(.handshakeFailed, "the server reset the connection during the TLS handshake")
          )
        default: throw error
        }
      }
    }
  }

  /// Reads what the socket has into `session` (waiting for it), or tells it the stream ended.
  private func receiveCiphertext(
    _ session: TLSSession, deadline: Deadline, cancellation: Cancellation, sent: Bool
  ) throws(TransportError) {
    var chunk = [UInt8](repeating: 0, count: 16 * 1024)
    let n = try receiveRaw(into: &chunk, deadline: deadline, cancellation: cancellation, sent: sent)
    if n == 0 {
      session.receivedEnd()
      return
    }
    let outcome = chunk.withUnsafeBytes { raw in
      Result { () throws(TLSFailure) in
        try session.received(UnsafeRawBufferPointer(rebasing: raw[0..<n]))
      }
    }
    if case .failure(let failure) = outcome { throw .tls(failure) }
  }

  /// Sends all of `bytes` (encrypted, over TLS).
  func write(_ bytes: [UInt8], deadline: Deadline, cancellation: Cancellation)
    throws(TransportError)
  {
    guard let tls else {
      try sendRaw(bytes, deadline: deadline, cancellation: cancellation)
      return
    }
    do throws(TLSFailure) {
      try tls.write(bytes)
    } catch {
      throw .connectionLost("TLS failed while sending: \(error.detail)")
    }
    try sendRaw(tls.takeOutput(), deadline: deadline, cancellation: cancellation)
  }

  /// Sends all of `bytes` as they are.
  private func sendRaw(_ bytes: [UInt8], deadline: Deadline, cancellation: Cancellation)
    throws(TransportError)
  {
    var sent = 0
    while sent < bytes.count {
      let n = bytes[sent...].withUnsafeBytes {
        send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      if n > 0 {
        sent += n
      } else if n < 0 && (errno == EAGAIN || errno == EINTR) {
        try wait(for: Int16(POLLOUT), deadline: deadline, cancellation: cancellation, sent: true)
      } else {
        if cancellation.isCancelled { throw .cancelled }
        throw .connectionLost(Self.resetWhileSending)
      }
    }
  }

  /// More bytes into the buffer; false at the end of the stream.
  private func fill(deadline: Deadline, cancellation: Cancellation) throws(TransportError) -> Bool {
    if bufferStart > 0 && bufferStart == buffer.count {
      buffer.removeAll(keepingCapacity: true)
      bufferStart = 0
    }
    var chunk = [UInt8](repeating: 0, count: 16 * 1024)
    guard let tls else {
      let n = try receiveRaw(
        into: &chunk, deadline: deadline, cancellation: cancellation, sent: true)
      buffer.append(contentsOf: chunk[0..<n])
      return n > 0
    }
    while true {
      let result: TLSSession.ReadResult
      do throws(TLSFailure) {
        result = try chunk.withUnsafeMutableBytes { raw in
          Result { () throws(TLSFailure) in try tls.read(into: raw) }
        }.get()
      } catch {
        throw .connectionLost("the TLS stream broke: \(error.detail)")
      }
      // Whatever TLS wants to say back (a key update) goes out first.
      if tls.pendingOutput > 0 {
        try sendRaw(tls.takeOutput(), deadline: deadline, cancellation: cancellation)
      }
      switch result {
      case .bytes(let n):
        buffer.append(contentsOf: chunk[0..<n])
        return true
      case .closed:
        if cancellation.isCancelled { throw .cancelled }
        return false
      case .needsInput:
        try receiveCiphertext(tls, deadline: deadline, cancellation: cancellation, sent: true)
      }
    }
  }

  /// Reads what the socket has into `chunk`, waiting for it: the count, 0 at the end of the
  /// stream.
  private func receiveRaw(
    into chunk: inout [UInt8], deadline: Deadline, cancellation: Cancellation, sent: Bool
  ) throws(TransportError) -> Int {
    while true {
      let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if n > 0 { return n }
      if n == 0 {
        if cancellation.isCancelled { throw .cancelled }
        return 0
      }
      if errno == EAGAIN || errno == EINTR {
        try wait(for: Int16(POLLIN), deadline: deadline, cancellation: cancellation, sent: sent)
        continue
      }
      if cancellation.isCancelled { throw .cancelled }
      throw .connectionLost("the connection was reset")
    }
  }

  /// The bytes received and not yet taken.
  private var pending: ArraySlice<UInt8> { buffer[bufferStart...] }

  /// Takes `count` bytes off the buffer.
  private func take(_ count: Int) -> ArraySlice<UInt8> {
    let taken = buffer[bufferStart..<bufferStart + count]
    bufferStart += count
    return taken
  }

  /// Reads one reply to a request with `method`. `keepAlive` in the result says whether the
  /// connection can carry another request.
  func readResponse(
    method: String, limits: ResponseLimits, deadline: Deadline, cancellation: Cancellation
  ) throws(TransportError) -> (response: TransportResponse, keepAlive: Bool) {
    var head: ResponseHead
    repeat {
      head = try readHead(limits: limits, deadline: deadline, cancellation: cancellation)
    } while (100...199).contains(head.status) && head.status != 101
    exchanges += 1
    var keepAlive = head.keepAlive
    var body: [UInt8] = []
    let hasNoBody =
      method == "HEAD" || head.status == 204 || head.status == 304 || head.status == 101
      || (method == "CONNECT" && (200...299).contains(head.status))
    if hasNoBody {
      // Nothing to read.
    } else if head.headers["Transfer-Encoding"]?.lowercased().contains("chunked") == true {
      let complete = try readChunked(
        into: &body, limits: limits, deadline: deadline, cancellation: cancellation)
      keepAlive = keepAlive && complete
    } else if let lengthText = head.headers["Content-Length"] {
      guard let length = Int(lengthText.trimmingSpaces()), length >= 0 else {
        throw .connectionLost("the server sent a malformed reply")
      }
      if length > limits.maximumBodyBytes && !limits.truncates {
        throw .tooLarge(limit: limits.maximumBodyBytes)
      }
      let wanted = min(length, limits.maximumBodyBytes)
      while pending.count < wanted {
        guard try fill(deadline: deadline, cancellation: cancellation) else {
          throw .connectionLost("the connection closed in the middle of the reply")
        }
      }
      body = Array(take(wanted))
      keepAlive = keepAlive && wanted == length
    } else {
      keepAlive = false
      while true {
        if pending.count > limits.maximumBodyBytes { break }
        guard try fill(deadline: deadline, cancellation: cancellation) else { break }
      }
      if pending.count > limits.maximumBodyBytes && !limits.truncates {
        throw .tooLarge(limit: limits.maximumBodyBytes)
      }
      body = Array(take(min(pending.count, limits.maximumBodyBytes)))
    }
    return (TransportResponse(status: head.status, headers: head.headers, body: body), keepAlive)
  }

  private struct ResponseHead {
    var status: Int
    var headers: HTTPHeaders
    var keepAlive: Bool
  }

  /// Reads up to the blank line after the headers and parses the status line and fields.
  private func readHead(limits: ResponseLimits, deadline: Deadline, cancellation: Cancellation)
    throws(TransportError) -> ResponseHead
  {
    var scanned = 0
    var end: Int?
    while end == nil {
      let bytes = pending
      var i = bytes.startIndex + max(0, scanned - 3)
      while i + 3 < bytes.endIndex {
        if bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
          end = i + 4 - bytes.startIndex
          break
        }
        i += 1
      }
      scanned = bytes.count
      if end != nil { break }
      guard bytes.count <= limits.maximumHeadBytes else {
        throw .connectionLost("the reply's header is larger than \(limits.maximumHeadBytes) bytes")
      }
      // On a reused connection, a close or reset before the first byte means the server had
      // dropped the idle connection: the request never reached it.
      let stale = bytes.isEmpty && exchanges > 0
      let more: Bool
      do throws(TransportError) {
        more = try fill(deadline: deadline, cancellation: cancellation)
      } catch {
        if stale, case .connectionLost = error { throw .connectionLost(Self.staleConnection) }
        throw error
      }
      guard more else {
        throw .connectionLost(
          stale ? Self.staleConnection : "the server closed the connection without a complete reply"
        )
      }
    }
    let text = String(decoding: take(end!), as: UTF8.self)
    var lines = text.split(separator: "\r\n", omittingEmptySubsequences: true)
    guard !lines.isEmpty else { throw .connectionLost("the server sent a malformed reply") }
    let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2)
    guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."),
      statusLine[1].count == 3, let status = Int(statusLine[1]), (100...999).contains(status)
    else { throw .connectionLost("the server sent a malformed reply") }
    var headers = HTTPHeaders()
    for line in lines {
      guard let colon = line.firstIndex(of: ":"), colon > line.startIndex,
        line.first != " ", line.first != "\t"
      else { throw .connectionLost("the server sent a malformed header") }
      headers.add(
        String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingSpaces())
    }
    let connection = headers.values("Connection").joined(separator: ",").lowercased()
    let keepAlive =
      statusLine[0] == "HTTP/1.1"
      ? !connection.contains("close") : connection.contains("keep-alive")
    return ResponseHead(status: status, headers: headers, keepAlive: keepAlive)
  }

  /// Reads a chunked body; false when it was cut at the limit (the connection is then spent).
  private func readChunked(
    into body: inout [UInt8], limits: ResponseLimits, deadline: Deadline,
    cancellation: Cancellation
  ) throws(TransportError) -> Bool {
    while true {
      let sizeLine = try readLine(limits: limits, deadline: deadline, cancellation: cancellation)
      let sizeText = String(sizeLine.prefix { $0 != ";" }).trimmingSpaces()
      guard !sizeText.isEmpty, sizeText.count <= 15, let size = Int(sizeText, radix: 16) else {
        throw .connectionLost("the server sent a malformed chunk")
      }
      if size == 0 {
        // Trailer fields, up to the blank line.
        while try !readLine(limits: limits, deadline: deadline, cancellation: cancellation)
          .isEmpty
        {}
        return true
      }
      if body.count + size > limits.maximumBodyBytes {
        guard limits.truncates else { throw .tooLarge(limit: limits.maximumBodyBytes) }
      }
      while pending.count < size + 2 {
        guard try fill(deadline: deadline, cancellation: cancellation) else {
          throw .connectionLost("the connection closed in the middle of the reply")
        }
      }
      let chunk = take(size)
      guard take(2).elementsEqual([13, 10]) else {
        throw .connectionLost("the server sent a malformed chunk")
      }
      let room = limits.maximumBodyBytes - body.count
      body.append(contentsOf: chunk.prefix(room))
      if chunk.count > room { return false }
    }
  }

  /// One CRLF-terminated line, without the CRLF.
  private func readLine(limits: ResponseLimits, deadline: Deadline, cancellation: Cancellation)
    throws(TransportError) -> String
  {
    while true {
      if let lf = pending.firstIndex(of: 10) {
        let line = take(lf - bufferStart + 1).dropLast()
        return String(decoding: line.last == 13 ? line.dropLast() : line, as: UTF8.self)
      }
      guard pending.count <= limits.maximumHeadBytes else {
        throw .connectionLost("the server sent a malformed chunk")
      }
      guard try fill(deadline: deadline, cancellation: cancellation) else {
        throw .connectionLost("the connection closed in the middle of the reply")
      }
    }
  }

  /// The message for a reused connection that the server had closed before our request.
  static let staleConnection = "the server closed the idle connection"
  static let resetWhileSending = "the connection was reset while sending"
}

/// How much of a reply is read.
struct ResponseLimits {
  var maximumBodyBytes: Int
  var truncates: Bool
  var maximumHeadBytes = 64 * 1024
}

/// A point in monotonic time after which an exchange gives up, with the idle timeout for each
/// single wait.
struct Deadline {
  /// Monotonic seconds.
  let end: Double
  let idle: Double

  init(total: Double, idle: Double) {
    end = Self.now() + (total.isFinite ? max(0, total) : 3600)
    self.idle = idle.isFinite ? max(0.001, idle) : 3600
  }

  /// How long the next wait may be, in milliseconds: the idle timeout, cut at the deadline.
  func remainingMilliseconds() -> Int32 {
    let seconds = min(idle, end - Self.now())
    return seconds <= 0 ? 0 : Int32(min(seconds * 1000, 3_600_000).rounded(.up))
  }

  static func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }
}

/// Lets another thread stop an exchange that is blocked in `poll`: cancelling shuts the
/// current socket down, which wakes the waiting thread at once.
final class Cancellation: Sendable {
  private let state = Mutex<(cancelled: Bool, fd: Int32?)>((false, nil))

  var isCancelled: Bool { state.withLock { $0.cancelled } }

  func cancel() {
    state.withLock { state in
      state.cancelled = true
      if let fd = state.fd { shutdown(fd, Int32(SHUT_RDWR)) }
    }
  }

  /// Makes `fd` the socket a cancellation shuts down; false when already cancelled.
  func attach(_ fd: Int32) -> Bool {
    state.withLock { state in
      guard !state.cancelled else { return false }
      state.fd = fd
      return true
    }
  }

  /// Forgets the socket: call before it is closed or handed to another exchange.
  func detach() { state.withLock { $0.fd = nil } }
}
