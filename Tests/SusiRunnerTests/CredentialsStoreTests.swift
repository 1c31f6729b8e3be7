import Foundation
import Testing

@testable import SusiRunner

/// `CredentialsStore`: a login file found missing is not looked for again on every chat.
@Suite struct CredentialsStoreTests {
  private let login = CredentialsStore.Credentials(
    server: "http://127.0.0.1:4000", email: "me@example.org", token: "t0k3n", expiresAt: nil)

  @Test func aFileFoundMissingCountsAsMissingUntilTheRecheckButOwnLoginsShowAtOnce() throws {
    let folder = Harness.makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let memoizing = CredentialsStore(stateDirectory: folder, missingRecheck: .seconds(3600))
    let lookingEachTime = CredentialsStore(stateDirectory: folder)
    #expect(try memoizing.load(server: login.server) == nil)
    #expect(try lookingEachTime.load(server: login.server) == nil)

    // Another process logs in: the one looking each time sees it, the other within the hour.
    try CredentialsStore(stateDirectory: folder).save(login)
    #expect(try lookingEachTime.load(server: login.server) == login)
    #expect(try memoizing.load(server: login.server) == nil)

    // Its own login it sees at once, and a file it found does not count as missing.
    try memoizing.save(login)
    #expect(try memoizing.load(server: login.server) == login)
    #expect(try memoizing.load(server: login.server) == login)
  }
}
