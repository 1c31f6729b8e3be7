import Foundation
import SusiCrypto
import SusiEventLog
import SusiHTTPTesting

/// A fresh folder under the system's temporary directory, removed when the value goes away.
final class TemporaryDirectory {
  let path: String

  init() throws {
    let url = TestScratch.root
      .appendingPathComponent("susi-eventlog-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    path = url.path
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }

  /// A path inside the folder.
  func file(_ name: String) -> String { path + "/" + name }
}

/// A version 2 object (without crc) for `seq`, shaped like an event: some records carry a chat
/// message, some a rating, some a skill list, so lengths vary.
func eventObject(seq: Int) -> [UInt8] {
  let payload: String
  switch seq % 3 {
  case 0:
    payload = #"{"text":"message number \#(seq) with some words","language":"en"}"#
  case 1:
    payload = #"{"group":"Knowledge","skill":"Synonyms","stars":\#(seq % 5 + 1)}"#
  default:
    payload =
      #"{"skills":["weather","news","jokes","\#(String(repeating: "x", count: seq % 40))"]}"#
  }
  let text =
    #"{"v":2,"seq":\#(seq),"at":"2026-11-21T10:00:00.123Z","origin":"jsonl","#
    + #""type":"event\#(seq % 3)","payload":\#(payload)}"#
  return Array(text.utf8)
}

/// Writes a log of `count` records with `EventLogWriter` and returns its bytes.
@discardableResult
func writeLog(at path: String, count: Int, fsync: EventLogFsyncPolicy = .never) throws -> [UInt8] {
  let writer = try EventLogWriter(path: path, options: .init(fsync: fsync))
  for seq in 1...count { try writer.append(eventObject(seq: seq)) }
  try writer.close()
  return try fileBytes(path)
}

func fileBytes(_ path: String) throws -> [UInt8] {
  Array(try Data(contentsOf: URL(fileURLWithPath: path)))
}

func writeFile(_ path: String, _ bytes: some Collection<UInt8>) throws {
  try Data(bytes).write(to: URL(fileURLWithPath: path))
}

/// Reads every record of the log, or throws the reader's error.
func readAll(_ path: String, firstSeq: Int? = 1, bufferSize: Int = 1 << 20) throws
  -> (records: [EventLogRecord], reader: EventLogReader)
{
  let reader = try EventLogReader(path: path, firstSeq: firstSeq, bufferSize: bufferSize)
  var records: [EventLogRecord] = []
  while let record = try reader.next() { records.append(record) }
  return (records, reader)
}

/// Byte offsets at which each line starts, plus the file length at the end.
func lineStarts(_ bytes: [UInt8]) -> [Int] {
  var starts = [0]
  for (index, byte) in bytes.enumerated() where byte == 0x0A { starts.append(index + 1) }
  return starts
}

/// The error a throwing call threw, as an `EventLogError`.
func eventLogError(_ body: () throws -> Void) -> EventLogError? {
  do {
    try body()
    return nil
  } catch let error as EventLogError {
    return error
  } catch {
    return nil
  }
}
