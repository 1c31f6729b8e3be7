import Foundation
import SusiCore
import SusiCrypto
import SusiFiles
import SusiJSON

/// The on-disk image cache, in the role Kingfisher plays in the iOS app.
///
/// - Content-addressed: a file is named by the SHA-256 of its bytes, so two URLs serving the
///   same image share one file.
/// - Size-bounded: beyond `capacity` bytes the least recently used URLs are evicted (a file
///   goes when no URL refers to it any more).
/// - One download per URL at a time: every request for a URL already being fetched waits for
///   that download, and each still gets its own result.
/// - Survives restarts: `index.json` (URL → file, size, last use) is replaced atomically after
///   each change; files the index does not know are removed when it is loaded.
actor ImageCache {
  /// Fetches an image's bytes (and media type); supplied by the runner.
  typealias Download = @Sendable (String) async throws(RunnerFailure) -> [UInt8]

  private struct Entry: Equatable {
    var file: String
    var bytes: Int
    var used: Int
  }

  /// A download in progress and the requests waiting for it.
  private final class Flight {
    let id: Int
    var waiters: [Int: CheckedContinuation<Result<Action.ImageCached, RunnerFailure>, Never>] = [:]
    var task: Task<Void, Never>?
    init(id: Int) { self.id = id }
  }

  let directory: String
  let capacity: Int
  private let download: Download
  private var entries: [String: Entry] = [:]
  private var flights: [String: Flight] = [:]
  private var loaded = false
  private var tick = 0
  private var nextID = 0

  init(directory: String, capacity: Int, download: @escaping Download) {
    self.directory = directory
    self.capacity = capacity
    self.download = download
  }

  /// The cached copy of the image at `url`, downloading it when needed.
  func image(_ url: String) async -> Result<Action.ImageCached, RunnerFailure> {
    do throws(RunnerFailure) {
      try loadIndexIfNeeded()
    } catch {
      return .failure(error)
    }
    if let hit = entries[url], FileManager.default.fileExists(atPath: path(hit.file)) {
      tick += 1
      entries[url]?.used = tick
      try? saveIndex()
      return .success(Action.ImageCached(url: url, path: path(hit.file), bytes: hit.bytes))
    }
    let flight = (flights[url] ?? startFlight(url)).id
    nextID += 1
    let waiter = nextID
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        wait(waiter, for: url, flight: flight, continuation)
      }
    } onCancel: {
      Task { await self.dropWaiter(waiter, of: url, flight: flight) }
    }
  }

  private func wait(
    _ waiter: Int, for url: String, flight id: Int,
    _ continuation: CheckedContinuation<Result<Action.ImageCached, RunnerFailure>, Never>
  ) {
    guard !Task.isCancelled, let flight = flights[url], flight.id == id else {
      continuation.resume(returning: .failure(.cancelled))
      return
    }
    flight.waiters[waiter] = continuation
  }

  /// How many downloads are running (for tests and metrics).
  var downloadsInFlight: Int { flights.count }

  /// How many requests wait for a download (for tests and metrics).
  var requestsWaiting: Int { flights.values.reduce(0) { $0 + $1.waiters.count } }

  private func startFlight(_ url: String) -> Flight {
    nextID += 1
    let flight = Flight(id: nextID)
    flights[url] = flight
    let download = download
    flight.task = Task {
      let result: Result<[UInt8], RunnerFailure>
      do throws(RunnerFailure) {
        result = .success(try await download(url))
      } catch {
        result = .failure(error)
      }
      self.land(url, flight: flight.id, result)
    }
    return flight
  }

  /// A download finished: store it and answer everyone waiting for it.
  private func land(_ url: String, flight id: Int, _ result: Result<[UInt8], RunnerFailure>) {
    let outcome: Result<Action.ImageCached, RunnerFailure>
    switch result {
    case .success(let bytes):
      do throws(RunnerFailure) {
        outcome = .success(try store(bytes, for: url))
      } catch {
        outcome = .failure(error)
      }
    case .failure(let failure):
      outcome = .failure(failure)
    }
    guard let flight = flights[url], flight.id == id else { return }
    flights[url] = nil
    for waiter in flight.waiters.values { waiter.resume(returning: outcome) }
  }

  /// A waiting request was cancelled; the download stops when nobody waits for it any more.
  private func dropWaiter(_ waiter: Int, of url: String, flight id: Int) {
    guard let flight = flights[url], flight.id == id,
      let continuation = flight.waiters.removeValue(forKey: waiter)
    else { return }
    continuation.resume(returning: .failure(.cancelled))
    if flight.waiters.isEmpty {
      flight.task?.cancel()
      flights[url] = nil
    }
  }

  private func store(_ bytes: [UInt8], for url: String) throws(RunnerFailure) -> Action.ImageCached
  {
    guard bytes.count <= capacity else {
      throw RunnerFailure(
        .tooLarge, "the image is larger than the whole image cache (\(capacity) bytes)")
    }
    let file = ByteEncoding.hex(Digest.sha256(bytes)) + ImageCache.fileExtension(bytes)
    if !FileManager.default.fileExists(atPath: path(file)) {
      try RunnerFailure.io(PrivateFile.makeDirectory(directory))
      try RunnerFailure.io(PrivateFile.write(bytes, to: path(file), mode: 0o600))
    }
    tick += 1
    entries[url] = Entry(file: file, bytes: bytes.count, used: tick)
    evict(keeping: url)
    try saveIndex()
    return Action.ImageCached(url: url, path: path(file), bytes: bytes.count)
  }

  /// Drops least recently used URLs until the distinct files fit in `capacity`.
  private func evict(keeping url: String) {
    while storedBytes > capacity {
      guard
        let victim = entries.filter({ $0.key != url }).min(by: { $0.value.used < $1.value.used })
      else { return }
      entries[victim.key] = nil
      if !entries.values.contains(where: { $0.file == victim.value.file }) {
        try? PrivateFile.remove(path(victim.value.file))
      }
    }
  }

  private var storedBytes: Int {
    var seen = Set<String>()
    return entries.values.reduce(0) { seen.insert($1.file).inserted ? $0 + $1.bytes : $0 }
  }

  private func path(_ file: String) -> String { "\(directory)/\(file)" }

  private var indexPath: String { "\(directory)/index.json" }

  private func saveIndex() throws(RunnerFailure) {
    try RunnerFailure.io(PrivateFile.makeDirectory(directory))
    var writer = JSONWriter()
    writer.object { o in
      o.field("version", 1)
      o.field("entries") { w in
        w.array(entries.sorted { $0.value.used < $1.value.used }) { w, entry in
          w.object { e in
            e.field("url", entry.key)
            e.field("file", entry.value.file)
            e.field("bytes", entry.value.bytes)
            e.field("used", entry.value.used)
          }
        }
      }
    }
    try RunnerFailure.io(PrivateFile.write(writer.bytes + [0x0A], to: indexPath, mode: 0o600))
  }

  /// Reads the index once; entries whose file is missing or of the wrong size are dropped,
  /// and files no entry refers to are removed.
  private func loadIndexIfNeeded() throws(RunnerFailure) {
    guard !loaded else { return }
    loaded = true
    try RunnerFailure.io(PrivateFile.makeDirectory(directory))
    if let data = FileManager.default.contents(atPath: indexPath),
      let json = try? JSONParser.parse(Array(data)), let list = json.object?.array("entries")
    {
      for item in list {
        guard let item = item.object, let url = item.text("url"), let file = item.text("file"),
          ImageCacheFile.isName(file), let bytes = item.int("bytes"),
          let used = item.int("used"),
          let attributes = try? FileManager.default.attributesOfItem(atPath: path(file)),
          (attributes[.size] as? NSNumber)?.intValue == bytes
        else { continue }
        entries[url] = Entry(file: file, bytes: bytes, used: used)
        tick = max(tick, used)
      }
    }
    let referenced = Set(entries.values.map(\.file))
    for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    where name != "index.json" && !referenced.contains(name) {
      try? PrivateFile.remove(path(name))
    }
  }

  /// An extension from the image's magic bytes, so a viewer opening the file knows its type.
  static func fileExtension(_ bytes: [UInt8]) -> String {
    ImageSniffer.kind(bytes)?.fileExtension ?? ""
  }
}

/// An image format the cache recognises.
public enum ImageKind: String, Sendable, CaseIterable {
  case png, jpeg, gif, webp, bmp, ico, svg

  /// The extension a cached file of this kind gets (`.jpg`).
  public var fileExtension: String {
    switch self {
    case .jpeg: ".jpg"
    default: "." + rawValue
    }
  }

  /// Its media type (`image/svg+xml`).
  public var mediaType: String {
    switch self {
    case .svg: "image/svg+xml"
    case .ico: "image/x-icon"
    default: "image/" + rawValue
    }
  }
}

/// The names of the image cache's files, for frontends that serve them.
public enum ImageCacheFile {
  /// True for names the cache writes: the SHA-256 of the bytes in 64 hex digits, and an
  /// optional extension.
  public static func isName(_ name: String) -> Bool {
    let stem = name.split(separator: ".", maxSplits: 1).first ?? ""
    return stem.count == 64 && stem.allSatisfy(\.isHexDigit) && !name.contains("/")
  }

  /// The name of the cache's file that `path` (as the state's `images` records it) ends in;
  /// nil when it does not end in a name the cache writes, so a path read from the log is never
  /// trusted to point anywhere else.
  public static func name(of path: String) -> String? {
    guard let name = path.split(separator: "/").last.map(String.init), isName(name) else {
      return nil
    }
    return name
  }
}

/// Recognises image formats by their first bytes.
public enum ImageSniffer {
  /// The format the first bytes show, or nil.
  public static func kind(_ b: [UInt8]) -> ImageKind? {
    if b.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return .png }
    if b.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
    if b.starts(with: Array("GIF8".utf8)) { return .gif }
    if b.count >= 12, b.starts(with: Array("RIFF".utf8)),
      b[8..<12].elementsEqual(Array("WEBP".utf8))
    {
      return .webp
    }
    if b.starts(with: Array("BM".utf8)) { return .bmp }
    if b.starts(with: [0, 0, 1, 0]) { return .ico }
    let head = HTMLText.asciiLowercased(String(decoding: b.prefix(512), as: UTF8.self))
    if head.contains("<svg") { return .svg }
    return nil
  }
}
