import SusiClock
import SusiCore
import SusiHTTPTypes
import SusiStore
import SusiTesting
import Testing

@testable import SusiAccess

/// One keys file changed by two processes (a running `susi serve` and `susi serve keys …` in a
/// terminal), each with its own view of it; and the gate that follows the store's access state.
@Suite struct SharedKeyFileTests {
  @Test func twoWritersOfOneKeysFileBothKeepTheirChange() throws {
    let path = FileManagerTestFolder().path + "/shared.keys"
    let server = try KeyFile(path: path)
    let terminal = try KeyFile(path: path)
    let first = KeyToken.generate()
    let second = KeyToken.generate()
    try server.add(first)
    // The terminal's view was read before the server's change: it must not write over it.
    try terminal.add(second)
    #expect(try KeyFile(path: path).keyIDs == [first.keyID, second.keyID].sorted())
    try terminal.remove(first.keyID)
    try server.add(KeyToken.generate())
    #expect(try !KeyFile(path: path).keyIDs.contains(first.keyID), "a removed hash stays removed")
  }

  @Test func reloadSeesAnotherWritersKeysAndForgetsRevokedOnes() throws {
    let path = FileManagerTestFolder().path + "/shared.keys"
    let server = try KeyFile(path: path)
    let terminal = try KeyFile(path: path)
    let issued = KeyToken.generate()
    try terminal.add(issued)
    #expect(!server.matches(issued))
    server.reload()
    #expect(server.matches(issued))
    // Revoked in the log, hash not yet removed from the file: forgotten all the same.
    server.reload(forgetting: [issued.keyID])
    #expect(!server.matches(issued))
  }

  /// A store, a keys file holding one new key (not issued in the log yet), and a gate
  /// following the store.
  private func gateOverAKeyFileHoldingOneKey() async throws
    -> (store: Store, keys: KeyFile, gate: AccessGate, token: KeyToken)
  {
    let store = Store(sink: MemoryEventSink(), runner: ManualRunner(), clock: ManualTimeSource())
    let keys = try KeyFile(path: FileManagerTestFolder().path + "/test.keys")
    let gate = await AccessGate.following(store, keys: keys)
    let token = KeyToken.generate()
    try keys.add(token)
    return (store, keys, gate, token)
  }

  @Test func theGateFollowsEveryAccessChangeTheStoreApplies() async throws {
    let (store, _, gate, token) = try await gateOverAKeyFileHoldingOneKey()
    #expect(gate.caller(keyID: token.keyID) == nil)
    // Sent straight to the store, as a change read from the log would be applied: nobody
    // tells the gate.
    try await store.send(
      .issueKey(.init(by: "local", key: token.keyID, groups: ["default"])), origin: .cli)
    #expect(gate.caller(keyID: token.keyID)?.holds(Privilege.stateRead) == true)
    try await store.send(
      .revokePrivilege(.init(by: "local", group: "default", privilege: Privilege.stateRead)),
      origin: .cli)
    #expect(!gate.allows(token.keyID, Privilege.stateRead))
    #expect(gate.allows(token.keyID, Privilege.eventsRead))
    try await store.send(.revokeKey(.init(by: "local", key: token.keyID)), origin: .cli)
    #expect(gate.caller(keyID: token.keyID) == nil)
    #expect(gate.access.keys[token.keyID]?.revokedAt != nil)
  }

  @Test func aTokenCheckedBeforeIsRefusedAtTheNextRequestOnceTheLogRevokesItsKey() async throws {
    let (store, keys, gate, token) = try await gateOverAKeyFileHoldingOneKey()
    try await store.send(
      .issueKey(.init(by: "local", key: token.keyID, groups: ["default"])), origin: .cli)
    let headers: HTTPHeaders = ["Authorization": "Bearer \(token.text)"]
    // The second check finds the token kept from the first.
    #expect((try? gate.authenticate(headers))?.keyID == token.keyID)
    #expect((try? gate.authenticate(headers))?.keyID == token.keyID)
    // Revoked in the log only: the keys file, and the token kept from it, are not touched.
    try await store.send(.revokeKey(.init(by: "local", key: token.keyID)), origin: .cli)
    #expect(keys.keyIDs == [token.keyID])
    #expect(throws: AccessRefused.self) { try gate.authenticate(headers) }
  }
}
