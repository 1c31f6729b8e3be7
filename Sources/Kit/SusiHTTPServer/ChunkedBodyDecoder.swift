import SusiHTTPTypes

/// A strict decoder for `Transfer-Encoding: chunked` request bodies (RFC 9112 §7.1).
///
/// Strict means: chunk sizes are 1 to 15 hex digits with nothing but an optional `;extension`
/// after them, every line ends in CRLF, chunk data is followed by exactly CRLF, and the body and
/// the trailer section obey the same limits as a `Content-Length` body and the header section.
/// Trailer fields are checked and then dropped.
struct ChunkedBodyDecoder {
  enum Output: Equatable {
    case needMoreBytes
    /// These bytes of the input are body data.
    case data(Range<Int>)
    /// The last chunk and the trailer section have been read.
    case end
    case rejected(HTTPRejection)
  }

  private enum Phase {
    case size
    case data(remaining: Int)
    case dataEnd
    case trailer
    case done
  }

  /// More hex digits than this could overflow, and no allowed body needs them.
  private static let maxSizeDigits = 15
  /// A chunk-size line with its extensions: 4 KiB, or less when the header limit is smaller.
  private var maxSizeLineBytes: Int { min(4096, limits.maxHeaderBytes) }

  private var phase = Phase.size
  private var bodyBytes = 0
  private var trailerBytes = 0
  private var trailerCount = 0
  private let limits: HTTPLimits

  init(limits: HTTPLimits) { self.limits = limits }

  /// Decodes from the start of `input`; returns how many bytes were used and what they were.
  mutating func decode(_ input: UnsafeBufferPointer<UInt8>) -> (consumed: Int, output: Output) {
    var offset = 0
    while true {
      switch phase {
      case .size:
        guard let lineFeed = input.indexOfLineFeed(from: offset) else {
          if input.count - offset > maxSizeLineBytes {
            return (offset, .rejected(.badRequest("chunk size line too long")))
          }
          return (offset, .needMoreBytes)
        }
        if lineFeed - offset > maxSizeLineBytes {
          return (offset, .rejected(.badRequest("chunk size line too long")))
        }
        guard lineFeed > offset, input[lineFeed - 1] == HTTPSyntax.cr else {
          return (offset, .rejected(.badRequest("chunk size line must end in CRLF")))
        }
        let line = UnsafeBufferPointer(rebasing: input[offset..<(lineFeed - 1)])
        let size: Int
        switch parseSizeLine(line) {
        case .success(let parsed): size = parsed
        case .failure(let rejection): return (offset, .rejected(rejection))
        }
        offset = lineFeed + 1
        if size == 0 {
          phase = .trailer
        } else {
          bodyBytes += size
          if bodyBytes > limits.maxBodyBytes {
            return (
              offset,
              .rejected(
                HTTPRejection(status: 413, reason: "body larger than \(limits.maxBodyBytes) bytes"))
            )
          }
          phase = .data(remaining: size)
        }

      case .data(let remaining):
        let available = input.count - offset
        if available == 0 { return (offset, .needMoreBytes) }
        let take = min(remaining, available)
        phase = take == remaining ? .dataEnd : .data(remaining: remaining - take)
        return (offset + take, .data(offset..<(offset + take)))

      case .dataEnd:
        let available = input.count - offset
        if available >= 1 && input[offset] != HTTPSyntax.cr
          || available >= 2 && input[offset + 1] != HTTPSyntax.lf
        {
          return (offset, .rejected(.badRequest("chunk data must be followed by CRLF")))
        }
        if available < 2 { return (offset, .needMoreBytes) }
        offset += 2
        phase = .size

      case .trailer:
        guard let lineFeed = input.indexOfLineFeed(from: offset) else {
          if trailerBytes + (input.count - offset) > limits.maxHeaderBytes {
            return (offset, .rejected(trailersTooLarge()))
          }
          return (offset, .needMoreBytes)
        }
        if trailerBytes + (lineFeed - offset) > limits.maxHeaderBytes {
          return (offset, .rejected(trailersTooLarge()))
        }
        guard lineFeed > offset, input[lineFeed - 1] == HTTPSyntax.cr else {
          return (offset, .rejected(.badRequest("trailer line must end in CRLF")))
        }
        let line = UnsafeBufferPointer(rebasing: input[offset..<(lineFeed - 1)])
        trailerBytes += line.count + 2
        offset = lineFeed + 1
        if trailerBytes > limits.maxHeaderBytes { return (offset, .rejected(trailersTooLarge())) }
        if line.isEmpty {
          phase = .done
          return (offset, .end)
        }
        if case .failure(let error) = HTTPFieldLine.parse(line) {
          return (offset, .rejected(.badRequest(error.reason)))
        }
        trailerCount += 1
        if trailerCount > limits.maxHeaderCount {
          return (offset, .rejected(HTTPRejection(status: 431, reason: "too many trailer fields")))
        }

      case .done:
        return (offset, .end)
      }
    }
  }

  private func trailersTooLarge() -> HTTPRejection {
    HTTPRejection(status: 431, reason: "trailer section larger than \(limits.maxHeaderBytes) bytes")
  }

  /// `1*HEXDIG [ ";" chunk-ext ]`, without whitespace around the size.
  private func parseSizeLine(_ line: UnsafeBufferPointer<UInt8>) -> Result<Int, HTTPRejection> {
    var size = 0
    var digits = 0
    var index = 0
    while index < line.count, let digit = HTTPSyntax.hexValue(line[index]) {
      size = size << 4 | digit
      digits += 1
      if digits > Self.maxSizeDigits { return .failure(.badRequest("chunk size too large")) }
      index += 1
    }
    if digits == 0 { return .failure(.badRequest("chunk size must be hexadecimal digits")) }
    if index < line.count {
      guard line[index] == UInt8(ascii: ";") else {
        return .failure(.badRequest("unexpected character after a chunk size"))
      }
      for byte in line[(index + 1)...] where !HTTPSyntax.isFieldValueByte(byte) {
        return .failure(.badRequest("control character in a chunk extension"))
      }
    }
    return .success(size)
  }
}
