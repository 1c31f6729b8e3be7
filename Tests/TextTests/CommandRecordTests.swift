import SusiCore
import SusiStore
import Testing

@testable import SusiText

/// What `--json` reports: this process's own events and the results they caused, never what
/// another process on the same log asked or got meanwhile.
@Suite
struct CommandRecordTests {
  static func published(_ seq: Int, cause: Int? = nil, other: Bool = false, _ action: Action)
    -> PublishedEvent
  {
    let event = Event(
      seq: seq, at: Timestamp(milliseconds: 0), origin: .cli, cause: cause, action: action)
    return PublishedEvent(
      event: event, line: Array("{\"seq\":\(seq)}".utf8), byAnotherProcess: other)
  }

  @Test func keepsOnlyThisProcessesIntentsAndTheirResults() {
    let record = CommandRecord()
    record.add(Self.published(10, .loadGroups(.init())))
    record.add(Self.published(11, other: true, .loadGroups(.init())))
    record.add(Self.published(12, cause: 11, other: true, .groupsLoaded(.init(groups: ["Theirs"]))))
    // A result this process logged for another process's request is not this command's either.
    record.add(Self.published(13, cause: 11, .groupsLoaded(.init(groups: ["Theirs too"]))))
    record.add(Self.published(14, cause: 10, other: true, .groupsLoaded(.init(groups: ["Mine"]))))
    #expect(record.seqs == [10, 14])
    #expect(record.data(command: "groups", fallback: nil) == #"{"groups":["Mine"]}"#)
    let events = record.json(command: "groups", exitCode: 0, pending: [])
    #expect(
      events == #"{"command":"groups","exitCode":0,"events":[{"seq":10},{"seq":14}],"pending":[]}"#)
  }

  @Test func dataIsNilWhenTheCommandGotNoResultOfItsKind() {
    let record = CommandRecord()
    record.add(Self.published(1, .loadGroups(.init())))
    #expect(record.data(command: "groups", fallback: nil) == nil)
  }
}
