import Glibc
import SusiJSON

/// The framing of one log line: how a record's object becomes a line, and how a line is checked
/// and turned back into the record's object.
///
/// Version 2 (written): `{"v":2,"seq":N,…,"crc":"xxxxxxxx"}\n`. The crc member is always last;
/// it is the CRC-32C, as 8 lower-case hex digits, of the line's bytes before `,"crc":"`.
/// Version 1 (read only): a JSON object with an integer `seq` and neither `v` nor `crc`.
enum EventLogLine {
  /// What every version 2 line starts with.
  static let versionTwoPrefix: StaticString = #"{"v":2,"seq":"#
  /// What precedes the checksum digits.
  static let checksumOpening: StaticString = #","crc":""#
  /// `,"crc":"` + 8 hex digits + `"}`: the fixed-size end of every version 2 line.
  static let trailerLength = 18

  /// A line that does not hold a valid record, and why.
  struct Problem: Error {
    var code: EventLogError.Code
    var message: String
  }

  /// A valid line's record. For version 2 the object without the crc member is the line's first
  /// `objectLength` bytes with the last of them (the comma before `"crc"`) read as `}`.
  struct Decoded {
    var version: Int
    var seq: Int
    var objectLength: Int
  }

  // MARK: Writing

  /// Checks that `object` can be written as a version 2 line, and returns its seq.
  static func seqOfObject(_ object: UnsafeRawBufferPointer, maximumLineLength: Int) throws(Problem)
    -> Int
  {
    let prefix = versionTwoPrefix.utf8CodeUnitCount
    guard object.count > prefix + 1, startsWithVersionTwoPrefix(object) else {
      throw Problem(
        code: .invalidRecord,
        message: #"the record must be a compact JSON object beginning with {"v":2,"seq":"#)
    }
    guard object[object.count - 1] == UInt8(ascii: "}") else {
      throw Problem(code: .invalidRecord, message: "the record must end with }")
    }
    guard object.count - 1 + trailerLength <= maximumLineLength else {
      throw Problem(
        code: .invalidRecord,
        message:
          "the record is \(object.count) bytes; with its checksum it would exceed the "
          + "\(maximumLineLength)-byte line limit")
    }
    guard let (seq, end) = parseSeq(object, from: prefix),
      object[end] == UInt8(ascii: ",") || end == object.count - 1
    else {
      throw Problem(code: .invalidRecord, message: "the record's seq must be a positive integer")
    }
    let base = object.baseAddress.unsafelyUnwrapped
    guard memchr(base, 0x0A, object.count) == nil, memchr(base, 0, object.count) == nil else {
      throw Problem(
        code: .invalidRecord,
        message: "the record contains a raw newline or NUL byte; encode it as compact JSON")
    }
    return seq
  }

  /// Appends the version 2 line for `object` (already checked by `seqOfObject`) to `line`.
  static func encode(_ object: UnsafeRawBufferPointer, into line: inout [UInt8]) {
    let body = UnsafeRawBufferPointer(rebasing: object[0..<(object.count - 1)])
    line.append(contentsOf: body.assumingMemoryBound(to: UInt8.self))
    line.append(
      contentsOf: UnsafeBufferPointer(
        start: checksumOpening.utf8Start, count: checksumOpening.utf8CodeUnitCount))
    appendHex(CRC32C.checksum(body), to: &line)
    line.append(UInt8(ascii: "\""))
    line.append(UInt8(ascii: "}"))
    line.append(0x0A)
  }

  // MARK: Reading

  /// Checks one line (without its newline) and returns its record.
  static func decode(_ line: UnsafeRawBufferPointer) throws(Problem) -> Decoded {
    if startsWithVersionTwoPrefix(line) {
      return try decodeVersionTwo(line)
    }
    return try decodeVersionOne(line)
  }

  private static func decodeVersionTwo(_ line: UnsafeRawBufferPointer) throws(Problem)
    -> Decoded
  {
    let count = line.count
    let trailerStart = count - trailerLength
    guard trailerStart > versionTwoPrefix.utf8CodeUnitCount, hasTrailerShape(line, at: trailerStart)
    else {
      throw Problem(
        code: .malformedLine,
        message: #"a version 2 line must end with ,"crc":"xxxxxxxx"}; this one does not"#)
    }
    guard
      let (seq, end) = parseSeq(line, from: versionTwoPrefix.utf8CodeUnitCount),
      end <= trailerStart, line[end] == UInt8(ascii: ",")
    else {
      throw Problem(code: .malformedLine, message: "the seq is not a positive integer")
    }
    guard let stored = parseHex(line, at: trailerStart + checksumOpening.utf8CodeUnitCount) else {
      throw Problem(
        code: .malformedLine, message: "the crc member is not 8 lower-case hex digits")
    }
    let computed = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: line[0..<trailerStart]))
    guard computed == stored else {
      var expected: [UInt8] = []
      appendHex(computed, to: &expected)
      throw Problem(
        code: .checksumMismatch,
        message:
          "checksum mismatch: the line says \(hexText(stored)) but its bytes give "
          + "\(String(decoding: expected, as: UTF8.self)); the line was changed after it was "
          + "written")
    }
    return Decoded(version: 2, seq: seq, objectLength: trailerStart + 1)
  }

  private static func decodeVersionOne(_ line: UnsafeRawBufferPointer) throws(Problem) -> Decoded {
    guard !line.isEmpty else { throw Problem(code: .malformedLine, message: "the line is empty") }
    let value: JSON
    do {
      value = try JSONParser.parse(line)
    } catch {
      throw Problem(code: .malformedLine, message: "the line is not JSON: \(error)")
    }
    guard let object = value.object else {
      throw Problem(
        code: .malformedLine, message: "the line is a JSON \(value.kindName), not an object")
    }
    if let version = object["v"] {
      if let number = version.int, number != 2 {
        throw Problem(
          code: .unsupportedVersion,
          message:
            "the record has format version \(number); this program reads versions 1 and 2. "
            + "Use a newer susi to read this log")
      }
      throw Problem(
        code: .malformedLine,
        message: #"a version 2 record must begin with {"v":2,"seq": exactly; this one does not"#)
    }
    guard object["crc"] == nil else {
      throw Problem(
        code: .malformedLine,
        message: "the line has a crc member but no version marker; its start was damaged")
    }
    guard let seq = object["seq"]?.int, seq > 0 else {
      throw Problem(code: .malformedLine, message: "the record has no positive integer seq")
    }
    return Decoded(version: 1, seq: seq, objectLength: line.count)
  }

  // MARK: Pieces

  /// Whether `bytes` holds `text` at `start`.
  static func has(_ text: StaticString, in bytes: UnsafeRawBufferPointer, at start: Int)
    -> Bool
  {
    guard start >= 0, bytes.count - start >= text.utf8CodeUnitCount else { return false }
    return memcmp(
      bytes.baseAddress.unsafelyUnwrapped + start, text.utf8Start, text.utf8CodeUnitCount)
      == 0
  }

  static func startsWithVersionTwoPrefix(_ bytes: UnsafeRawBufferPointer) -> Bool {
    has(versionTwoPrefix, in: bytes, at: 0)
  }

  /// Whether `line` has `,"crc":"` at `start` and `"}` as its last two bytes.
  static func hasTrailerShape(_ line: UnsafeRawBufferPointer, at start: Int) -> Bool {
    has(checksumOpening, in: line, at: start) && has(#""}"#, in: line, at: line.count - 2)
  }

  /// Reads the decimal seq starting at `start`: 1 to 18 digits, no leading zero. Returns it and
  /// the index of the first byte after the digits.
  private static func parseSeq(_ bytes: UnsafeRawBufferPointer, from start: Int) -> (Int, Int)? {
    var index = start
    var value = 0
    while index < bytes.count, index - start < 18 {
      let digit = bytes[index] &- UInt8(ascii: "0")
      guard digit < 10 else { break }
      value = value &* 10 &+ Int(digit)
      index += 1
    }
    guard index > start, index < bytes.count, bytes[start] != UInt8(ascii: "0") else { return nil }
    return (value, index)
  }

  /// The 8 lower-case hex digits at `start`, read all at once (no branch per digit).
  private static func parseHex(_ line: UnsafeRawBufferPointer, at start: Int) -> UInt32? {
    guard start >= 0, line.count - start >= 8, let base = line.baseAddress else { return nil }
    let word = UInt64(littleEndian: (base + start).loadUnaligned(as: UInt64.self))
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs = ones &* 0x80
    guard word & highs == 0 else { return nil }
    // A byte below 0x80 plus at most 0x50 stays below 0x100: no carry reaches the next byte, and
    // each sum's high bit says whether the byte is at least the bound.
    let atLeastZero = word &+ ones &* (0x80 - 0x30)
    let aboveNine = word &+ ones &* (0x80 - 0x3A)
    let atLeastA = word &+ ones &* (0x80 - 0x61)
    let aboveF = word &+ ones &* (0x80 - 0x67)
    let digits = atLeastZero & ~aboveNine & highs
    let letters = atLeastA & ~aboveF & highs
    guard digits | letters == highs else { return nil }
    // Each byte's value (a-f: low nibble + 9), then the eight nibbles gathered, first one highest.
    var value = (word & (ones &* 0x0F)) &+ (letters &>> 7) &* 9
    value = ((value & 0x000F_000F_000F_000F) &<< 4) | ((value &>> 8) & 0x000F_000F_000F_000F)
    value = ((value & 0x0000_00FF_0000_00FF) &<< 8) | ((value &>> 16) & 0x0000_00FF_0000_00FF)
    value = ((value & 0xFFFF) &<< 16) | ((value &>> 32) & 0xFFFF)
    return UInt32(truncatingIfNeeded: value)
  }

  private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

  private static func appendHex(_ value: UInt32, to bytes: inout [UInt8]) {
    for shift in stride(from: 28, through: 0, by: -4) {
      bytes.append(hexDigits[Int((value >> UInt32(shift)) & 0xF)])
    }
  }

  private static func hexText(_ value: UInt32) -> String {
    var bytes: [UInt8] = []
    appendHex(value, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }
}

extension EventLogWriter {
  /// Checks a log line (as the log holds it, without its newline) as the log's reader checks
  /// each line of a file, and returns the seq it records, or why it is not a record.
  public static func seq(ofLine line: [UInt8]) throws(LogLineProblem) -> Int {
    let decoded = line.withUnsafeBytes { bytes in
      Result { () throws(EventLogLine.Problem) -> EventLogLine.Decoded in
        try EventLogLine.decode(bytes)
      }
    }
    switch decoded {
    case .success(let record): return record.seq
    case .failure(let problem): throw LogLineProblem(message: problem.message)
    }
  }

  /// The record's object in a log line (as the log holds it, without its newline): a version 2
  /// line without its crc member, any other line as it is. The checksum is not checked here.
  public static func object(inLine line: [UInt8]) -> [UInt8] {
    let checksum = line.count - EventLogLine.trailerLength
    let isVersionTwo = line.withUnsafeBytes { bytes in
      checksum > 0 && EventLogLine.startsWithVersionTwoPrefix(bytes)
        && EventLogLine.hasTrailerShape(bytes, at: checksum)
    }
    guard isVersionTwo else { return line }
    var object = Array(line[..<checksum])
    object.append(UInt8(ascii: "}"))
    return object
  }

}

/// Why a log line is not a record.
public struct LogLineProblem: Error, Sendable {
  public let message: String
}
