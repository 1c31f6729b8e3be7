import Foundation
import SusiJSON

/// Keeps accounts, tokens and ratings in JSON files under the state directory.
///
/// Every file is replaced atomically and created 0600 (it holds emails, password hashes and
/// token digests); the directory is created 0700.
struct StateStore: Sendable {
  /// Why the saved state could not be read.
  struct LoadError: Error, CustomStringConvertible, Sendable {
    var description: String
  }

  static let formatVersion = 1

  let directory: URL

  var accountsFile: URL { directory.appendingPathComponent("accounts.json") }
  var tokensFile: URL { directory.appendingPathComponent("tokens.json") }
  var ratingsFile: URL { directory.appendingPathComponent("ratings.json") }

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
        state.accounts.put(
          Account(
            email: try reader.string("email"), role: role, salt: try reader.string("salt"),
            passwordHash: try reader.string("password_hash"), created: created,
            settings: settings))
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
        "settings": .object(account.settings),
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
