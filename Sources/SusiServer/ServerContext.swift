import Foundation
import SusiCrypto
import Synchronization

/// What every endpoint can reach: the configuration, the loaded skills and web content, the
/// clock, and the mutable state behind one lock.
final class ServerContext: Sendable {
  let configuration: ServerConfiguration
  let library: SkillLibrary
  let web: WebContent
  let store: StateStore?
  let state: Mutex<ServerState>

  var clock: ServerClock { configuration.clock }

  init(configuration: ServerConfiguration) throws {
    self.configuration = configuration
    let data = configuration.dataDirectory ?? ServerConfiguration.bundledDataDirectory
    library = SkillLibrary.load(from: data)
    web = WebContent(
      dataDirectory: data, fallbackDirectory: ServerConfiguration.bundledDataDirectory)
    store = configuration.stateDirectory.map { StateStore(directory: $0) }
    let seed =
      configuration.seed
      ?? Digest.randomBytes(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    var initial = ServerState(random: SeededRandom(seed: seed))
    try store?.load(into: &initial)
    state = Mutex(initial)
  }

  /// Runs `body` under the state lock.
  func withState<Result>(_ body: (inout ServerState) throws(APIError) -> Result) throws(APIError)
    -> Result
  {
    try state.withLock { (state: inout ServerState) throws(APIError) -> Result in
      try body(&state)
    }
  }

  /// Turns a failed save into the 500 the caller sees; the in-memory state is left unchanged
  /// by the callers, which only commit after a successful save.
  static func saveFailed(_ error: FileError) -> APIError {
    APIError(500, "could not save server state: \(error)")
  }
}
