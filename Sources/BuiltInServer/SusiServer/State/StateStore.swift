import Foundation
import Glibc
import SusiJSON

/// Keeps accounts, tokens and ratings in JSON files under the state directory.
///
/// Every file is replaced atomically and created 0600 (it holds emails, password hashes and
/// token digests); the directory is created 0700.
///
/// Several processes may serve from one state directory (`susi server` and the built-in server
/// of each running `susi`): every change is a read-modify-write under an exclusive `flock` on
/// `state.lock` (`lock`), reading the files afresh, so no process overwrites what another saved;
/// reads pick up what others saved when the files' identities change (`stamps`).
struct StateStore: Sendable {
  /// Why the saved state could not be read.
  struct LoadError: Error, CustomStringConvertible, Sendable {
    var description: String
  }

  static let formatVersion = 1

  let directory: URL
  let accountsFile: URL
  let tokensFile: URL
  let ratingsFile: URL
  /// The chat memory (see `MemoryFile.swift`).
  let memoryFile: URL
  // Paths looked at on every chat, made once: joining a URL costs more than the system call.
  private let savedPaths: [String]
  let lockPath: String
  let memoryPath: String

  init(directory: URL) {
    self.directory = directory
    accountsFile = directory.appendingPathComponent("accounts.json")
    tokensFile = directory.appendingPathComponent("tokens.json")
    ratingsFile = directory.appendingPathComponent("ratings.json")
    memoryFile = directory.appendingPathComponent("memory.jsonl")
    savedPaths = [accountsFile.path, tokensFile.path, ratingsFile.path]
    lockPath = directory.appendingPathComponent("state.lock").path
    memoryPath = memoryFile.path
  }

  /// What identifies the saved files' current versions: a file replaced by another process gets
  /// a new inode, change time or size.
  func stamps() -> [FileStamp] {
    savedPaths.map { FileStamp(path: $0) }
  }

  /// Takes the lock on the state files, exclusive unless told otherwise (blocking: others hold
  /// it only for one read-modify-write). Returns the descriptor to close, which releases it.
  func lock(exclusive: Bool = true) throws(APIError) -> Int32 {
    let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard fd >= 0 else {
      throw APIError(
        500, "could not lock the server state \(lockPath): \(String(cString: strerror(errno)))"
      )
    }
    while flock(fd, exclusive ? LOCK_EX : LOCK_SH) != 0 {
      guard errno == EINTR else {
        let reason = String(cString: strerror(errno))
        close(fd)
        throw APIError(500, "could not lock the server state: \(reason)")
      }
    }
    return fd
  }

  /// Replaces the saved parts of `state` (accounts, tokens, ratings) with what the files hold now.
  func reload(_ state: inout ServerState) throws {
    var fresh = ServerState(random: state.random)
    let stamps = stamps()
    try load(into: &fresh)
    state.accounts = fresh.accounts
    state.tokens = fresh.tokens
    state.ratings = fresh.ratings
    state.savedStamps = stamps
  }

  /// Reads what a previous run saved (missing files mean "nothing yet").
  func load(into state: inout ServerState) throws {
    try AtomicFile.makeDirectory(directory)
    if let accounts = try readDocument(accountsFile, list: "accounts") {
      for (i, entry) in accounts.enumerated() {
        let path = "accounts.json: accounts[\(i)]"
        let reader = try FieldReader(entry, path: path)
        guard let role = Account.Role(rawValue: try reader.string("role")) else {
          throw LoadError(description: "\(path).role: unknown role")
        }
        let created = try date(reader.string("created"), "\(path).created")
        var settings = JSONObject()
        for member in try reader.object("settings").object {
          guard let value = member.value.string else {
            throw LoadError(description: "\(path).settings.\(member.key): expected a string")
          }
          settings[member.key] = .string(value)
        }
        // Files written before devices were kept have none.
        let devices = try reader.optionalObject("devices")?.object ?? [:]
        state.accounts.put(
          Account(
            email: try reader.string("email"), role: role, salt: try reader.string("salt"),
            passwordHash: try reader.string("password_hash"), created: created,
            settings: settings, devices: devices))
      }
    }
    if let tokens = try readDocument(tokensFile, list: "tokens") {
      for (i, entry) in tokens.enumerated() {
        let path = "tokens.json: tokens[\(i)]"
        let reader = try FieldReader(entry, path: path)
        let expires = try reader.optionalString("expires").map { try date($0, "\(path).expires") }
        state.tokens.add(
          digest: try reader.string("token_sha256"),
          record: TokenBook.Record(email: try reader.string("email"), expires: expires))
      }
    }
    if let ratings = try readDocument(ratingsFile, list: "ratings") {
      for (i, entry) in ratings.enumerated() {
        let path = "ratings.json: ratings[\(i)]"
        let reader = try FieldReader(entry, path: path)
        let key = SkillKey(
          model: try reader.string("model"), group: try reader.string("group"),
          language: try reader.string("language"), skill: try reader.string("skill"))
        state.ratings.set(
          key, user: try reader.string("email"),
          rating: UserRating(
            stars: try reader.int("stars"), date: try date(reader.string("date"), "\(path).date")))
      }
    }
  }

  func saveAccounts(_ accounts: AccountBook) throws(FileError) {
    let list = accounts.sorted.map { account -> JSON in
      .object([
        "email": .string(account.email), "role": .string(account.role.rawValue),
        "salt": .string(account.salt), "password_hash": .string(account.passwordHash),
        "created": .string(SusiDateFormat.millis(account.created)),
        "settings": .object(account.settings), "devices": .object(account.devices),
      ])
    }
    try save(accountsFile, list: "accounts", list)
  }

  func saveTokens(_ tokens: TokenBook) throws(FileError) {
    let list = tokens.records.sorted { $0.key < $1.key }.map { digest, record -> JSON in
      .object([
        "token_sha256": .string(digest), "email": .string(record.email),
        "expires": record.expires.map { .string(SusiDateFormat.millis($0)) } ?? .null,
      ])
    }
    try save(tokensFile, list: "tokens", list)
  }

  func saveRatings(_ ratings: RatingBook) throws(FileError) {
    var list: [JSON] = []
    let keys = ratings.ratings.keys.sorted {
      ($0.model, $0.group, $0.language, $0.skill) < ($1.model, $1.group, $1.language, $1.skill)
    }
    for key in keys {
      for (email, rating) in (ratings.ratings[key] ?? [:]).sorted(by: { $0.key < $1.key }) {
        list.append(
          .object([
            "model": .string(key.model), "group": .string(key.group),
            "language": .string(key.language), "skill": .string(key.skill),
            "email": .string(email), "stars": .int(rating.stars),
            "date": .string(SusiDateFormat.millis(rating.date)),
          ]))
      }
    }
    try save(ratingsFile, list: "ratings", list)
  }

  private func save(_ url: URL, list name: String, _ list: [JSON]) throws(FileError) {
    let document = JSON.object(["version": .int(StateStore.formatVersion), name: .array(list)])
    try AtomicFile.write(Array((document.prettyText(indent: 2) + "\n").utf8), to: url)
  }

  private func readDocument(_ url: URL, list name: String) throws -> [JSON]? {
    guard let bytes = try AtomicFile.read(url) else { return nil }
    let document: JSON
    do {
      document = try JSONParser.parse(bytes)
    } catch {
      throw LoadError(description: "\(url.path) is not valid JSON (\(error)); fix or remove it")
    }
    let reader = try FieldReader(document, path: url.lastPathComponent)
    let version = try reader.int("version")
    guard version == StateStore.formatVersion else {
      throw LoadError(
        description:
          "\(url.path) has format version \(version); this server reads version \(StateStore.formatVersion)"
      )
    }
    return try reader.array(name)
  }

  private func date(_ text: String, _ path: String) throws -> Date {
    guard let date = SusiDateFormat.parseMillis(text) else {
      throw LoadError(description: "\(path): not a date: \(text)")
    }
    return date
  }
}

/// One version of a file: a replacement (rename over it) changes the inode, the change time or
/// the size.
struct FileStamp: Equatable, Sendable {
  var inode: UInt64 = 0
  var size: Int64 = -1
  var changed: timespec = timespec()

  init(path: String) {
    var info = stat()
    guard stat(path, &info) == 0 else { return }
    inode = UInt64(info.st_ino)
    size = Int64(info.st_size)
    changed = info.st_ctim
  }

  static func == (a: FileStamp, b: FileStamp) -> Bool {
    a.inode == b.inode && a.size == b.size && a.changed.tv_sec == b.changed.tv_sec
      && a.changed.tv_nsec == b.changed.tv_nsec
  }
}
