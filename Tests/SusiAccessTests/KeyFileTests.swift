import SusiTesting
import Synchronization
import Testing

@testable import SusiAccess

/// The keys file's token check: an unknown key id runs the same comparison as a known one, so
/// its timing does not tell which ids exist.
@Suite struct KeyFileTests {
  /// Records the stored side of every comparison a keys file makes, in order.
  private final class Comparisons: Sendable {
    private let stored = Mutex<[[UInt8]]>([])
    var all: [[UInt8]] { stored.withLock { $0 } }
    func record(_ hash: [UInt8]) { stored.withLock { $0.append(hash) } }
  }

  private func recordingKeyFile() throws -> (KeyFile, Comparisons) {
    let compared = Comparisons()
    let file = try KeyFile(path: FileManagerTestFolder().path + "/test.keys") { stored, presented in
      compared.record(stored)
      return stored == presented
    }
    return (file, compared)
  }

  @Test func unknownKeyIDRunsTheSameComparisonAgainstADummyHash() throws {
    let (file, compared) = try recordingKeyFile()
    let unknown = KeyToken.generate()
    #expect(!file.matches(unknown))
    let stored = compared.all
    #expect(stored == [KeyFile.unknownKeyHash])
    #expect(stored.first?.count == unknown.hash.count)
  }

  @Test func knownKeyIDComparesAgainstItsStoredHash() throws {
    let (file, compared) = try recordingKeyFile()
    let known = KeyToken.generate()
    try file.add(known)
    #expect(file.matches(known))
    #expect(!file.matches(try wrongSecret(of: known)))
    #expect(compared.all == [known.hash, known.hash])
  }

  @Test func aTokenPresentedAgainIsComparedWithTheOneThatMatchedInsteadOfHashedAgain() throws {
    let (file, compared) = try recordingKeyFile()
    let known = KeyToken.generate()
    try file.add(known)
    #expect(file.matches(known))
    #expect(file.matches(known))
    #expect(file.matches(known))
    #expect(compared.all == [known.hash])
  }

  @Test func anythingButTheExactTokenThatMatchedIsStillHashedAndRefused() throws {
    let (file, compared) = try recordingKeyFile()
    let known = KeyToken.generate()
    try file.add(known)
    #expect(file.matches(known))
    #expect(!file.matches(try wrongSecret(of: known)))
    // The kept token with bytes after it (256 more, so the lengths agree in their low byte).
    let longer = known.text + String(repeating: "A", count: 256)
    var text = longer
    #expect(!text.withUTF8 { file.matches(keyID: known.keyID, token: $0) })
    var prefix = String(known.text.dropLast())
    #expect(!prefix.withUTF8 { file.matches(keyID: known.keyID, token: $0) })
    #expect(compared.all == [known.hash, known.hash, known.hash, known.hash])
  }

  @Test func aKeptTokenStopsMatchingOnceItsHashIsRemovedOrForgotten() throws {
    let (file, _) = try recordingKeyFile()
    let first = KeyToken.generate()
    let second = KeyToken.generate()
    try file.add(first)
    try file.add(second)
    #expect(file.matches(first) && file.matches(second))
    try file.remove(first.keyID)
    #expect(!file.matches(first))
    #expect(file.matches(second))
    file.reload(forgetting: [second.keyID])
    #expect(!file.matches(second))
  }

  @Test func dummyHashNeverMatchesAnUnknownToken() throws {
    let file = try KeyFile(path: FileManagerTestFolder().path + "/test.keys")
    #expect(!file.matches(KeyToken.generate()))
  }

  /// A token with `key`'s id and another secret.
  private func wrongSecret(of key: KeyToken) throws -> KeyToken {
    try #require(KeyToken("susi_\(key.keyID.dropFirst(4))_" + String(repeating: "A", count: 43)))
  }
}
