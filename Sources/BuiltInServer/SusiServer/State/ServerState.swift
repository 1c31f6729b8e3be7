import Foundation
import SusiCrypto

/// Everything the server changes while it runs, guarded by one lock in `ServerContext`.
struct ServerState: Sendable {
  var accounts = AccountBook()
  var tokens = TokenBook()
  var ratings = RatingBook()
  var loginFailures = LoginFailures()
  var memory = ConversationMemory()
  /// How often each skill answered (`usage_count`), by `Skill.serverPath`.
  var usage: [String: Int] = [:]
  var random: SeededRandom
  /// The saved files' versions when they were last read (`StateStore.stamps`).
  var savedStamps: [FileStamp] = []
  /// How far the saved chat memory has been read (`StateStore.catchUpMemory`).
  var memoryPosition = MemoryPosition()
}
