/// Scrubs secrets out of free text (error messages, reasons) before it is logged: query
/// parameters such as `access_token=…` or `password=…` and `Bearer …` credentials. Together with
/// `Secret`, this keeps every secret out of the event log; the event codec is the one place that
/// applies both.
public enum Redaction {
  static let secretParameters = [
    "access_token", "password", "token", "secret", "api_key", "apikey",
  ]

  /// `text` with secret values replaced by `[redacted]`.
  public static func scrub(_ text: String) -> String {
    // A byte scan first: most text has no secret, and this runs for every logged reason.
    guard mayHoldSecret(text) else { return text }
    var out = text
    for name in secretParameters {
      out = replaceValues(after: name + "=", in: out)
    }
    out = replaceValues(after: "Bearer ", in: out)
    out = replaceValues(after: "bearer ", in: out)
    return out
  }

  /// Whether `text` has an `=` or mentions `Bearer`/`bearer`: one pass over its bytes.
  private static func mayHoldSecret(_ text: String) -> Bool {
    var text = text
    return text.withUTF8 { bytes in
      let rest: StaticString = "earer"
      var index = 0
      while index < bytes.count {
        let byte = bytes[index]
        index += 1
        if byte == UInt8(ascii: "=") { return true }
        guard byte == UInt8(ascii: "b") || byte == UInt8(ascii: "B"),
          bytes.count - index >= rest.utf8CodeUnitCount
        else { continue }
        if UnsafeBufferPointer(rebasing: bytes[index..<(index + rest.utf8CodeUnitCount)])
          .elementsEqual(UnsafeBufferPointer(start: rest.utf8Start, count: rest.utf8CodeUnitCount))
        {
          return true
        }
      }
      return false
    }
  }

  private static func replaceValues(after marker: String, in text: String) -> String {
    let bytes = Array(text.utf8)
    let pattern = Array(marker.utf8)
    let stops: Set<UInt8> = [
      UInt8(ascii: "&"), 0x20, 0x09, 0x0d, 0x22, 0x27, 0x0a, 0x2c, 0x3b, 0x3c, 0x3e,
    ]
    let redacted = Array(Secret.redactedText.utf8)
    var out: [UInt8] = []
    var i = 0
    while i < bytes.count {
      if i + pattern.count <= bytes.count && bytes[i..<(i + pattern.count)].elementsEqual(pattern) {
        out.append(contentsOf: pattern)
        i += pattern.count
        // A doubled marker (`Bearer Bearer KEY`, in any case) must still hide KEY.
        while i + pattern.count <= bytes.count
          && zip(bytes[i..<(i + pattern.count)], pattern).allSatisfy({
            lowercased($0) == lowercased($1)
          })
        {
          out.append(contentsOf: bytes[i..<(i + pattern.count)])
          i += pattern.count
        }
        var end = i
        while end < bytes.count && !stops.contains(bytes[end]) { end += 1 }
        if end > i {
          out.append(
            contentsOf: bytes[i..<end].elementsEqual(redacted) ? Array(bytes[i..<end]) : redacted)
        }
        i = end
      } else {
        out.append(bytes[i])
        i += 1
      }
    }
    return String(decoding: out, as: UTF8.self)
  }

  private static func lowercased(_ byte: UInt8) -> UInt8 {
    (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
  }
}

extension RequestError {
  /// The error with secrets scrubbed from its message: what the log holds, and so what the state
  /// holds, live or replayed.
  public var scrubbed: RequestError {
    RequestError(kind: kind, status: status, message: Redaction.scrub(message))
  }
}
