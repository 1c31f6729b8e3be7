import SusiCrypto
public import SusiFiles
import SusiJSON
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Where the hashes of key secrets are kept: a file beside the log (`KeyFile(path:)`), or a
/// table in the database a log in PostgreSQL is in, which every node of a fleet shares.
public protocol KeyHashStorage: Sendable {
  /// Where the hashes are, for messages.
  var name: String { get }
  /// Every hash stored, by key id.
  func load() throws(PrivateFile.Failure) -> [String: [UInt8]]
  /// Stores `hash` as key `id`'s (nil: forgets it), and returns every hash stored now.
  func store(_ id: String, hash: [UInt8]?) throws(PrivateFile.Failure) -> [String: [UInt8]]
}

/// The hashes of key secrets, by key id: in a file beside the log (mode 0600, replaced
/// atomically), or in another `KeyHashStorage`. The log records which keys exist and their
/// groups; the hashes are what lets a presented token be checked, without the token ever being
/// stored.
///
/// ```
/// {"format":"susi-keys","version":1,"keys":[{"id":"key_1f…","sha256":"9c…"}]}
/// ```
public final class KeyFile: Sendable {
  /// Where the hashes are: the file's path, or the storage's name.
  public let path: String
  /// Nil for a key file that holds no key and is kept nowhere.
  private let storage: (any KeyHashStorage)?
  private let stored: Mutex<Stored>
  /// Compares a stored hash with a presented one; tests watch it to see which path ran.
  private let compare: @Sendable ([UInt8], [UInt8]) -> Bool

  /// Loads the file, or starts empty when it does not exist yet. Refuses a file others can
  /// read, or one that is not a keys file.
  public convenience init(path: String) throws(PrivateFile.Failure) {
    try self.init(path: path, compare: Digest.constantTimeEqual)
  }

  convenience init(path: String, compare: @escaping @Sendable ([UInt8], [UInt8]) -> Bool)
    throws(PrivateFile.Failure)
  {
    try self.init(storage: KeyHashFile(path: path), compare: compare)
  }

  /// Loads the hashes kept in `storage`.
  public convenience init(storage: any KeyHashStorage) throws(PrivateFile.Failure) {
    try self.init(storage: storage, compare: Digest.constantTimeEqual)
  }

  init(storage: any KeyHashStorage, compare: @escaping @Sendable ([UInt8], [UInt8]) -> Bool)
    throws(PrivateFile.Failure)
  {
    self.path = storage.name
    self.storage = storage
    self.compare = compare
    stored = Mutex(Stored(hashes: try storage.load()))
  }

  /// The hashes in the file at `path`; none when it does not exist.
  static func load(_ path: String) throws(PrivateFile.Failure) -> [String: [UInt8]] {
    var loaded: [String: [UInt8]] = [:]
    guard let bytes = try PrivateFile.read(path, ownerOnly: true) else { return loaded }
    do {
      let r = try FieldReader(try JSONParser.parse(bytes))
      guard try r.string("format") == "susi-keys", try r.int("version") == 1 else {
        throw PrivateFile.Failure(path: path, reason: "is not a version 1 susi keys file")
      }
      for entry in try r.objects("keys") {
        let id = try entry.string("id")
        guard let hash = ByteEncoding.hexDecode(try entry.string("sha256")), hash.count == 32
        else {
          throw PrivateFile.Failure(path: path, reason: "key \(id) has no valid sha256")
        }
        loaded[id] = hash
      }
    } catch let failure as PrivateFile.Failure {
      throw failure
    } catch {
      throw PrivateFile.Failure(path: path, reason: "is not a valid keys file: \(error)")
    }
    return loaded
  }

  /// A key file that holds no key and is kept nowhere (adding one fails): for a frontend that
  /// takes no keys (`susi web`).
  public static func none() -> KeyFile { KeyFile(nowhere: ()) }

  private init(nowhere: Void) {
    path = ""
    storage = nil
    compare = Digest.constantTimeEqual
    stored = Mutex(Stored(hashes: [:]))
  }

  /// Whether `token` is the secret of its key: its hash matches the stored one (compared in
  /// constant time).
  ///
  /// An unknown id takes the same path as a known one (hash the token, compare against a hash
  /// of the same length), so the time taken does not tell whether a key id exists.
  public func matches(_ token: KeyToken) -> Bool {
    var text = token.text
    return text.withUTF8 { matches(keyID: token.keyID, token: $0) }
  }

  /// Whether `token`, the bytes of a presented token whose key id is `keyID`, is that key's
  /// secret; the same check as `matches(_:)`, hashing the bytes where they are.
  ///
  /// A token that matched is kept (in memory only, one per key id) until the stored hashes
  /// change: presented again, it is compared with the kept one in constant time instead of
  /// hashed again. Any other token takes that comparison too (against nothing when no token of
  /// its id is kept), then the hash as before.
  func matches(keyID: String, token: UnsafeBufferPointer<UInt8>) -> Bool {
    let (hash, kept) = stored.withLock { ($0.hashes[keyID], $0.verified[keyID]) }
    if Self.sameBytes(kept, token) { return true }
    let equal = compare(hash ?? Self.unknownKeyHash, Digest.sha256(token))
    guard let hash, equal else { return false }
    let verified = Array(token)
    // Kept only while the hash it matched is still the stored one.
    stored.withLock { if $0.hashes[keyID] == hash { $0.verified[keyID] = verified } }
    return true
  }

  /// The stored hashes, and the tokens that matched them since they last changed.
  private struct Stored {
    var hashes: [String: [UInt8]] {
      didSet { verified = [:] }
    }
    var verified: [String: [UInt8]] = [:]
  }

  /// Whether `kept` holds exactly the bytes of `token`. Every byte of the token is compared,
  /// whatever `kept` holds (with nothing kept, against a dummy), so the time taken depends on
  /// the token's length only.
  private static func sameBytes(_ kept: [UInt8]?, _ token: UnsafeBufferPointer<UInt8>) -> Bool {
    let reference = kept ?? unknownKeyHash
    var difference: UInt8 = reference.count == token.count ? 0 : 1
    for index in 0..<token.count {
      difference |= (index < reference.count ? reference[index] : 0xFF) ^ token[index]
    }
    return difference == 0 && kept != nil
  }

  /// What an unknown id's token is compared against: no SHA-256 of a token is all zeros.
  static let unknownKeyHash = [UInt8](repeating: 0, count: 32)

  /// Stores the hash of a new key's secret and writes the file.
  public func add(_ token: KeyToken) throws(PrivateFile.Failure) {
    try update(token.keyID, hash: token.hash)
  }

  /// Forgets a key's hash (after it was revoked, or when its issue was refused).
  public func remove(_ keyID: String) throws(PrivateFile.Failure) {
    try update(keyID, hash: nil)
  }

  /// The ids of every stored key, sorted.
  public var keyIDs: [String] { stored.withLock { $0.hashes.keys.sorted() } }

  /// Reads the file again, for changes another process made (a key issued or revoked from the
  /// command line while `susi serve` runs, or on another node of a fleet), and forgets the
  /// hashes of `forgetting` (revoked keys) whether or not they are gone from the file yet. A
  /// file that cannot be read leaves the hashes known so far, less `forgetting`.
  public func reload(forgetting: Set<String> = []) {
    guard let storage else { return }
    let loaded = try? storage.load()
    stored.withLock { stored in
      if let loaded { stored.hashes = loaded }
      for id in forgetting { stored.hashes[id] = nil }
    }
  }

  /// Changes the stored hashes and keeps what they hold now.
  private func update(_ id: String, hash: [UInt8]?) throws(PrivateFile.Failure) {
    guard let storage else {
      throw PrivateFile.Failure(path: path, reason: "is no file: this frontend takes no keys")
    }
    try stored.withLock { (stored) throws(PrivateFile.Failure) in
      stored.hashes = try storage.store(id, hash: hash)
    }
  }

  static func encode(_ hashes: [String: [UInt8]]) -> [UInt8] {
    var w = JSONWriter()
    w.object { o in
      o.field("format", "susi-keys")
      o.field("version", 1)
      o.field("keys") { w in
        w.array(hashes.keys.sorted()) { w, id in
          w.object {
            $0.field("id", id)
            $0.field("sha256", ByteEncoding.hex(hashes[id]!))
          }
        }
      }
    }
    w.byte(0x0A)
    return w.bytes
  }
}

/// The keys file: read again and rewritten under a lock on `PATH.lock` at every change, so that
/// two processes changing it at once (`susi serve` issuing a key while `susi serve keys revoke`
/// runs in a terminal) both keep their change.
struct KeyHashFile: KeyHashStorage {
  let path: String

  var name: String { path }

  func load() throws(PrivateFile.Failure) -> [String: [UInt8]] { try KeyFile.load(path) }

  func store(_ id: String, hash: [UInt8]?) throws(PrivateFile.Failure) -> [String: [UInt8]] {
    let lock = try FileLock(path + ".lock")
    defer { lock.release() }
    var next = try KeyFile.load(path)
    next[id] = hash
    try PrivateFile.write(KeyFile.encode(next), to: path)
    return next
  }
}

/// An exclusive `flock` on a lock file (mode 0600, made when missing), held until `release`.
private struct FileLock {
  let fd: Int32

  init(_ path: String) throws(PrivateFile.Failure) {
    let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard fd >= 0 else {
      throw PrivateFile.Failure(
        path: path, reason: "cannot be opened as a lock file (errno \(errno))")
    }
    while flock(fd, LOCK_EX) != 0 {
      let code = errno
      if code == EINTR { continue }
      close(fd)
      throw PrivateFile.Failure(path: path, reason: "cannot be locked (errno \(code))")
    }
    self.fd = fd
  }

  func release() {
    flock(fd, LOCK_UN)
    close(fd)
  }
}
