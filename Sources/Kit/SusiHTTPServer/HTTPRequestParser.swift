/// An incremental, strict HTTP/1.1 request parser that performs no I/O.
///
/// Feed it whatever bytes arrived with `append(_:)`, then call `next()` until it answers
/// `.needMoreBytes`. Each request yields `.head`, then zero or more `.body` pieces, then `.end`;
/// bytes after that belong to the next (pipelined) request. After `.rejected` the parser stays
/// rejected: a connection whose framing went wrong is never resynchronised, since guessing where
/// the next request starts is what request smuggling exploits.
struct HTTPRequestParser {
  enum Event: Equatable {
    case needMoreBytes
    case head(HTTPRequestHead)
    case body([UInt8])
    case end
    case rejected(HTTPRejection)
  }

  private enum State {
    case head(HTTPHeadScanner)
    case fixedBody(remaining: Int)
    case chunkedBody(ChunkedBodyDecoder)
    case messageEnd
    case failed(HTTPRejection)
  }

  let limits: HTTPLimits
  private var buffer: [UInt8] = []
  /// Bytes before this index have been consumed.
  private var start = 0
  private var state = State.head(HTTPHeadScanner())

  init(limits: HTTPLimits) { self.limits = limits }

  /// Bytes received but not yet consumed by `next()`.
  var bufferedByteCount: Int { buffer.count - start }

  /// Whether the parser waits for the first byte of a request: no part of one has arrived.
  var isAwaitingRequest: Bool {
    if case .head = state { return bufferedByteCount == 0 }
    return false
  }

  /// Adds bytes received from the client.
  mutating func append(_ bytes: UnsafeRawBufferPointer) {
    if case .failed = state { return }
    compact()
    buffer.append(contentsOf: bytes)
  }

  /// Adds bytes received from the client.
  mutating func append(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { append($0) }
  }

  /// The next thing the buffered bytes say.
  mutating func next() -> Event {
    switch state {
    case .head(var scanner):
      state = .messageEnd  // Released while scanning, so the scanner's headers are not copied.
      let outcome = buffer.withUnsafeBufferPointer { whole in
        scanner.scan(UnsafeBufferPointer(rebasing: whole[start...]), limits: limits)
      }
      switch outcome {
      case .needMoreBytes:
        state = .head(scanner)
        return .needMoreBytes
      case .rejected(let rejection):
        return fail(rejection)
      case .complete(let head, let length):
        start += length
        switch head.bodyFraming {
        case .none: state = .messageEnd
        case .contentLength(let length): state = .fixedBody(remaining: length)
        case .chunked: state = .chunkedBody(ChunkedBodyDecoder(limits: limits))
        }
        return .head(head)
      }

    case .fixedBody(let remaining):
      let take = min(remaining, bufferedByteCount)
      if take == 0 { return .needMoreBytes }
      let piece = Array(buffer[start..<(start + take)])
      start += take
      state = take == remaining ? .messageEnd : .fixedBody(remaining: remaining - take)
      return .body(piece)

    case .chunkedBody(var decoder):
      let (consumed, output) = buffer.withUnsafeBufferPointer { whole in
        decoder.decode(UnsafeBufferPointer(rebasing: whole[start...]))
      }
      let base = start
      start += consumed
      state = .chunkedBody(decoder)
      switch output {
      case .needMoreBytes: return .needMoreBytes
      case .data(let range):
        return .body(Array(buffer[(base + range.lowerBound)..<(base + range.upperBound)]))
      case .end:
        state = .messageEnd
        return next()
      case .rejected(let rejection): return fail(rejection)
      }

    case .messageEnd:
      state = .head(HTTPHeadScanner())
      return .end

    case .failed(let rejection):
      return .rejected(rejection)
    }
  }

  private mutating func fail(_ rejection: HTTPRejection) -> Event {
    state = .failed(rejection)
    buffer = []
    start = 0
    return .rejected(rejection)
  }

  /// Drops consumed bytes once they are worth moving, so the buffer stays bounded.
  private mutating func compact() {
    if start == 0 { return }
    if start == buffer.count {
      buffer.removeAll(keepingCapacity: buffer.capacity <= 64 * 1024)
      start = 0
    } else if start >= 4096 && start * 2 >= buffer.count {
      buffer.removeSubrange(0..<start)
      start = 0
    }
  }
}
