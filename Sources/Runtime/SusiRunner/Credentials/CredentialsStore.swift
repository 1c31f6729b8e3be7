import SusiCore
import SusiCrypto
import SusiFiles
import SusiJSON
import Synchronization

/// Keeps the access token of each server in its own file under `<state>/credentials/`,
/// mode 0600 in a 0700 folder, never anywhere else (not in the state, not in the log).
///
/// A file that others can read is refused with a fix-it message rather than used.
struct CredentialsStore: Sendable {
  /// What a login leaves behind for one server.
  struct Credentials: Equatable, Sendable {
    /// The server as effects name it (`embedded` or a URL).
    var server: String
    var email: String
    var token: String
    /// When the server stops accepting the token; nil = never.
    var expiresAt: Timestamp?

    func isExpired(at moment: Timestamp) -> Bool { expiresAt.map { $0 <= moment } ?? false }
  }

  let directory: String
  /// What every chat would otherwise work out again, by server: the file's name (a digest), and
  /// when the file was last found missing.
  private let memo = Memo()
  /// How long a missing file counts as missing before it is looked for again: a chat asks for
  /// the token each time, and looking costs a system call; another process that logs in is
  /// seen this much later at most (this one's own login is seen at once).
  private let missingRecheck: Duration

  init(stateDirectory: String, missingRecheck: Duration = .zero) {
    directory = stateDirectory + "/credentials"
    self.missingRecheck = missingRecheck
  }

  /// The file for `server`: named by a digest, so any URL makes a safe file name.
  func path(for server: String) -> String {
    if let known = memo.entries.withLock({ $0[server]?.path }) { return known }
    let digest = ByteEncoding.hex(Array(Digest.sha256(Array(server.utf8)).prefix(12)))
    let path = "\(directory)/token-\(digest).json"
    memo.entries.withLock { entries in
      // A few servers at most; a runaway set of names is simply not remembered.
      if entries.count < 64 { entries[server] = Memo.Entry(path: path) }
    }
    return path
  }

  private final class Memo: Sendable {
    struct Entry {
      var path: String
      var missingAt: ContinuousClock.Instant?
    }
    let entries = Mutex<[String: Entry]>([:])
  }

  /// True when the file for `server` was found missing less than `missingRecheck` ago.
  private func knownMissing(_ server: String) -> Bool {
    guard missingRecheck > .zero else { return false }
    guard let missingAt = memo.entries.withLock({ $0[server]?.missingAt }) else { return false }
    return ContinuousClock.now - missingAt < missingRecheck
  }

  private func noteMissing(_ server: String, _ missing: Bool) {
    guard missingRecheck > .zero else { return }
    let now: ContinuousClock.Instant? = missing ? ContinuousClock.now : nil
    memo.entries.withLock { $0[server]?.missingAt = now }
  }

  func save(_ credentials: Credentials) throws(RunnerFailure) {
    try RunnerFailure.io(PrivateFile.makeDirectory(directory))
    var b = ObjectBuilder()
    b.set("server", credentials.server)
    b.set("email", credentials.email)
    b.set("access_token", credentials.token)
    b.set("expires_at", credentials.expiresAt.map { JSON.string($0.rfc3339) } ?? .null)
    var writer = JSONWriter()
    writer.value(b.json)
    try RunnerFailure.io(
      PrivateFile.write(writer.bytes + [0x0A], to: path(for: credentials.server)))
    noteMissing(credentials.server, false)
  }

  /// The credentials for `server`, or nil when nobody is logged in there.
  func load(server: String) throws(RunnerFailure) -> Credentials? {
    if knownMissing(server) { return nil }
    let file = path(for: server)
    let read = try RunnerFailure.io(
      PrivateFile.read(file, maximumBytes: 64 * 1024, ownerOnly: true))
    noteMissing(server, read == nil)
    guard let bytes = read else { return nil }
    guard let json = try? JSONParser.parse(bytes), let object = json.object,
      let token = object.text("access_token"), !token.isEmpty,
      object.text("server") == server
    else {
      throw RunnerFailure(.io, "\(file) is damaged; remove it and log in again")
    }
    let expiresAt: Timestamp?
    switch object["expires_at"] {
    case nil, .null?: expiresAt = nil
    case .string(let text)?:
      guard let parsed = Timestamp(rfc3339: text) else {
        throw RunnerFailure(.io, "\(file) is damaged; remove it and log in again")
      }
      expiresAt = parsed
    default:
      throw RunnerFailure(.io, "\(file) is damaged; remove it and log in again")
    }
    return Credentials(
      server: server, email: object.text("email") ?? "", token: token, expiresAt: expiresAt)
  }

  /// Forgets the token for `server`.
  func remove(server: String) throws(RunnerFailure) {
    try RunnerFailure.io(PrivateFile.remove(path(for: server)))
  }
}
