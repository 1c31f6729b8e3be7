import Foundation
import Glibc
import SusiClock
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
  /// Runs `!console:` rules that fetch a URL.
  let consoleService: ConsoleService

  /// What runs console rules with a `url` and javascript rules for the chat: the configured
  /// procedures, or the network and the script engine.
  var procedures: any SkillProcedures {
    configuration.procedures ?? NetworkSkillProcedures(context: self)
  }

  /// The current time on the configured time source.
  var now: Date {
    Date(timeIntervalSince1970: Double(configuration.clock.millisecondsSince1970()) / 1000)
  }

  init(configuration: ServerConfiguration) throws {
    self.configuration = configuration
    let bundled = try? ServerConfiguration.bundledDataDirectory
    guard let data = configuration.dataDirectory ?? bundled else {
      throw ServerConfiguration.BundledDataMissing(
        searched: ServerConfiguration.bundledDataCandidates.map(\.path))
    }
    library = SkillLibrary.load(
      from: data,
      indexFile: configuration.stateDirectory?.appendingPathComponent(SkillLibrary.indexFileName))
    web = WebContent(dataDirectory: data, fallbackDirectory: bundled ?? data)
    store = configuration.stateDirectory.map { StateStore(directory: $0) }
    var consoleConfiguration = configuration.console
    consoleConfiguration.allowsPrivateHosts = configuration.allowsPrivateConsoleHosts
    let warn = configuration.ruleWarnings ?? { _ in }
    consoleService = ConsoleService(
      transport: configuration.consoleTransport,
      configuration: consoleConfiguration, clock: configuration.clock,
      warn: { warn("!console: \($0)") })
    let seed =
      configuration.seed
      ?? Digest.randomBytes(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    var initial = ServerState(random: SeededRandom(seed: seed))
    if let store {
      initial.savedStamps = store.stamps()
      try store.load(into: &initial)
      store.catchUpMemory(&initial)
    }
    state = Mutex(initial)
  }

  /// Runs `body` under the state lock, to change the state: with a state directory, also under
  /// the lock on its files and after reading them afresh, so a change never overwrites what
  /// another process sharing the directory saved.
  func withState<Result>(_ body: (inout ServerState) throws(APIError) -> Result) throws(APIError)
    -> Result
  {
    try state.withLock { (state: inout ServerState) throws(APIError) -> Result in
      guard let store else { return try body(&state) }
      let lock = try store.lock()
      defer { close(lock) }
      do {
        try store.reload(&state)
      } catch {
        throw APIError(500, "could not read the server state: \(error)")
      }
      return try body(&state)
    }
  }

  /// Runs `body` under the state lock, to read the state: first picks up what another process
  /// sharing the state directory saved since it was last read.
  func readState<Result>(_ body: (inout ServerState) -> Result) -> Result {
    state.withLock { state in
      // A file being replaced right now reads as its old or new version; a failed read keeps
      // what is known, and the next request tries again.
      if let store, store.stamps() != state.savedStamps { try? store.reload(&state) }
      return body(&state)
    }
  }

  /// Turns a failed save into the 500 the caller sees; the in-memory state is left unchanged
  /// by the callers, which only commit after a successful save.
  static func saveFailed(_ error: FileError) -> APIError {
    APIError(500, "could not save server state: \(error)")
  }
}
