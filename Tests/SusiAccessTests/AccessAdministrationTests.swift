import SusiClock
import SusiCore
import SusiStore
import SusiTesting
import Synchronization
import Testing

@testable import SusiAccess

/// Key and group changes: the keys file and the log kept in step, whichever refuses.
@Suite struct AccessAdministrationTests {
  /// A log in memory that runs `check` before each append; when `check` throws, the append is
  /// refused.
  final class WatchedSink: EventSink {
    let lines = MemoryEventSink()
    let check: Mutex<@Sendable () throws -> Void> = Mutex({})

    func append(_ record: [UInt8]) throws -> [UInt8] {
      try check.withLock { $0 }()
      return try lines.append(record)
    }
    func sync() throws {}
    func close() {}
    var history: any EventHistory { lines.history }
  }

  struct LogFull: Error {}

  /// Records what the keys file holds each time the log is asked to append.
  final class KeyIDsAtAppend: Sendable {
    private let seen = Mutex<[[String]]>([])
    var all: [[String]] { seen.withLock { $0 } }
    func record(_ ids: [String]) { seen.withLock { $0.append(ids) } }
  }

  struct Fixture {
    let sink: WatchedSink
    let keys: KeyFile
    let administration: AccessAdministration
    let seen = KeyIDsAtAppend()

    init(keys: KeyFile? = nil) throws {
      sink = WatchedSink()
      self.keys = try keys ?? KeyFile(path: FileManagerTestFolder().path + "/test.keys")
      let store = Store(sink: sink, runner: ManualRunner(), clock: ManualTimeSource())
      administration = AccessAdministration(store: store, keys: self.keys)
      let (keys, seen) = (self.keys, seen)
      sink.check.withLock { $0 = { seen.record(keys.keyIDs) } }
    }

    /// Makes the log refuse every append from now on (after recording the keys file).
    func refuseAppends() {
      let (keys, seen) = (self.keys, seen)
      sink.check.withLock {
        $0 = {
          seen.record(keys.keyIDs)
          throw LogFull()
        }
      }
    }

    func issue(_ groups: [String] = []) async throws(AccessAdministration.Failure)
      -> AccessAdministration.IssuedKey
    {
      try await administration.issueKey(
        groups: groups, label: "test", by: AccessControl.localOperator, origin: .cli)
    }
  }

  @Test func theHashIsStoredBeforeTheIntentIsAppended() async throws {
    let f = try Fixture()
    let issued = try await f.issue()
    #expect(f.seen.all == [[issued.token.keyID]])
    #expect(f.keys.matches(issued.token))
    #expect(issued.groups == [AccessControl.defaultGroup])
    #expect(issued.sent.access.keys[issued.token.keyID]?.label == "test")
    #expect(f.sink.lines.lines.count == 1)
  }

  @Test func aKeyTheLogRefusesLosesItsHashAgain() async throws {
    let f = try Fixture()
    f.refuseAppends()
    var failure: AccessAdministration.Failure?
    do {
      _ = try await f.issue()
    } catch {
      failure = error
    }
    guard case .store = failure else {
      Issue.record("expected a log failure, got \(String(describing: failure))")
      return
    }
    let atAppend = try #require(f.seen.all.first)
    #expect(atAppend.count == 1)
    #expect(f.keys.keyIDs == [])
    #expect(f.sink.lines.lines.isEmpty)
  }

  @Test func aKeyTheRulesRefuseLosesItsHashAndAppendsNothing() async throws {
    let f = try Fixture()
    var failure: AccessAdministration.Failure?
    do {
      _ = try await f.issue(["nobody-made-this-group"])
    } catch {
      failure = error
    }
    guard case .access(let problem) = failure else {
      Issue.record("expected an access refusal, got \(String(describing: failure))")
      return
    }
    #expect(problem.kind == .notFound)
    #expect(f.keys.keyIDs == [])
    #expect(f.seen.all == [])
  }

  @Test func aKeysFileThatCannotBeWrittenStopsTheIssueBeforeTheLog() async throws {
    let f = try Fixture(keys: KeyFile.none())
    var failure: AccessAdministration.Failure?
    do {
      _ = try await f.issue()
    } catch {
      failure = error
    }
    guard case .keyFile = failure else {
      Issue.record("expected a keys file failure, got \(String(describing: failure))")
      return
    }
    #expect(f.seen.all == [])
  }

  @Test func revokingRemovesTheHashOnlyAfterTheLogAccepted() async throws {
    let f = try Fixture()
    let issued = try await f.issue()
    let sent = try await f.administration.revokeKey(
      issued.token.keyID, by: AccessControl.localOperator, origin: .cli)
    #expect(sent.access.keys[issued.token.keyID]?.revokedAt != nil)
    // When the revocation was appended the hash was still there; now it is gone.
    #expect(f.seen.all == [[issued.token.keyID], [issued.token.keyID]])
    #expect(f.keys.keyIDs == [])
  }

  @Test func aRevocationTheLogRefusesKeepsTheHash() async throws {
    let f = try Fixture()
    let issued = try await f.issue()
    f.refuseAppends()
    await #expect(throws: AccessAdministration.Failure.self) {
      try await f.administration.revokeKey(
        issued.token.keyID, by: AccessControl.localOperator, origin: .cli)
    }
    #expect(f.keys.keyIDs == [issued.token.keyID])
    #expect(f.keys.matches(issued.token))
  }

  @Test func groupChangesAreCheckedAndAppended() async throws {
    let f = try Fixture()
    let create = Action.createAccessGroup(.init(by: AccessControl.localOperator, group: "ops"))
    let created = try await f.administration.change(create, origin: .cli)
    #expect(created.access.groups["ops"]?.privileges.contains(Privilege.keysManage) == false)
    let granted = try await f.administration.change(
      .grantPrivilege(
        .init(by: AccessControl.localOperator, group: "ops", privilege: Privilege.keysManage)),
      origin: .cli)
    #expect(granted.access.groups["ops"]?.privileges.contains(Privilege.keysManage) == true)
    var failure: AccessAdministration.Failure?
    do {
      _ = try await f.administration.change(create, origin: .cli)
    } catch {
      failure = error
    }
    guard case .access(let problem) = failure else {
      Issue.record("expected an access refusal, got \(String(describing: failure))")
      return
    }
    #expect(problem.kind == .conflict)
    #expect(f.sink.lines.lines.count == 2)
  }
}
