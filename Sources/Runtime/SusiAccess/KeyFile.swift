import SusiCrypto
public import SusiFiles
import SusiJSON
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The hashes of key secrets, by key id, in a file beside the log (mode 0600, replaced
/// atomically). The log records which keys exist and their groups; this file is what lets a
/// presented token be checked, without the token ever being stored.
///
/// ```
/// {"format":"susi-keys","version":1,"keys":[{"id":"key_1f…","sha256":"9c…"}]}
/// ```
public final class KeyFile: Sendable {
  /// Where the file is.
  public let path: String
  private let hashes: Mutex<[String: [UInt8]]>
  /// Compares a stored hash with a presented one; tests watch it to see which path ran.
  private let compare: @Sendable ([UInt8], [UInt8]) -> Bool

  /// Loads the file, or starts empty when it does not exist yet. Refuses a file others can
  /// read, or one that is not a keys file.
  public convenience init(path: String) throws(PrivateFile.Failure) {
    try self.init(path: path, compare: Digest.constantTimeEqual)
  }

  init(path: String, compare: @escaping @Sendable ([UInt8], [UInt8]) -> Bool)
    throws(PrivateFile.Failure)
  {
    self.path = path
    self.compare = compare
    hashes = Mutex(try Self.load(path))
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
    compare = Digest.constantTimeEqual
    hashes = Mutex([:])
  }

  /// Whether `token` is the secret of its key: its hash matches the stored one (compared in
  /// constant time).
  ///
  /// An unknown id takes the same path as a known one (hash the token, compare against a hash
  /// of the same length), so the time taken does not tell whether a key id exists.
  public func matches(_ token: KeyToken) -> Bool {
    let stored = hashes.withLock { $0[token.keyID] }
    let equal = compare(stored ?? Self.unknownKeyHash, token.hash)
    return stored != nil && equal
  }

  /// What an unknown id's token is compared against: no SHA-256 of a token is all zeros.
  static let unknownKeyHash = [UInt8](repeating: 0, count: 32)

  /// Stores the hash of a new key's secret and writes the file.
  public func add(_ token: KeyToken) throws(PrivateFile.Failure) {
    try update { $0[token.keyID] = token.hash }
  }

  /// Forgets a key's hash (after it was revoked, or when its issue was refused).
  public func remove(_ keyID: String) throws(PrivateFile.Failure) {
    try update { $0[keyID] = nil }
  }

  /// The ids of every stored key, sorted.
  public var keyIDs: [String] { hashes.withLock { $0.keys.sorted() } }

  /// Reads the file again, for changes another process made (a key issued or revoked from the
  /// command line while `susi serve` runs), and forgets the hashes of `forgetting` (revoked
  /// keys) whether or not they are gone from the file yet. A file that cannot be read leaves
  /// the hashes known so far, less `forgetting`.
  public func reload(forgetting: Set<String> = []) {
    guard !path.isEmpty else { return }
    let loaded = try? Self.load(path)
    hashes.withLock { hashes in
      if let loaded { hashes = loaded }
      for id in forgetting { hashes[id] = nil }
    }
  }

  /// Changes the file: read again and rewritten under a lock on `PATH.lock`, so that two
  /// processes changing it at once (`susi serve` issuing a key while `susi serve keys revoke`
  /// runs in a terminal) both keep their change.
  private func update(_ change: (inout [String: [UInt8]]) -> Void) throws(PrivateFile.Failure) {
    guard !path.isEmpty else {
      throw PrivateFile.Failure(path: path, reason: "is no file: this frontend takes no keys")
    }
    let lock = try FileLock(path + ".lock")
    defer { lock.release() }
    try hashes.withLock { (hashes) throws(PrivateFile.Failure) in
      var next = try Self.load(path)
      change(&next)
      try PrivateFile.write(Self.encode(next), to: path)
      hashes = next
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
