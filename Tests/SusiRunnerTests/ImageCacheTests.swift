import Foundation
import SusiCore
import SusiCrypto
import SusiHTTPClient
import SusiHTTPTesting
import SusiHTTPTypes
import SusiRunner
import SusiTesting
import Synchronization
import Testing

@testable import SusiRunner

/// The on-disk image cache: content addressing, one download per URL, LRU bounds, restarts.
@Suite(.hangLimit)
struct ImageCacheTests {
  static func png(_ fill: UInt8, size: Int = 100) -> [UInt8] {
    [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: fill, count: size - 8)
  }

  static func image(_ bytes: [UInt8]) -> TransportResponse {
    TransportResponse(status: 200, headers: ["Content-Type": "image/png"], body: bytes)
  }

  static func expectedPath(_ harness: Harness, _ bytes: [UInt8]) -> String {
    "\(harness.directory)/images/\(ByteEncoding.hex(Digest.sha256(bytes))).png"
  }

  @Test func tenRequestsForOneImageShareOneDownloadAndEachGetsAResult() async {
    let bytes = Self.png(7)
    let harness = Harness(
      holding: true, configure: { $0.concurrencyLimit = 16 },
      respond: { _ in
        Self.image(bytes)
      })
    for cause in 1...10 {
      harness.start(.cacheImage(url: "https://img.example/cat.png"), cause: cause)
    }
    await harness.transport.waitForHeld(count: 1)
    harness.transport.releaseAll()
    #expect(await harness.runner.waitUntilIdle(timeout: Double(hangLimitSeconds)))
    let cached = Action.imageCached(
      .init(url: "https://img.example/cat.png", path: Self.expectedPath(harness, bytes), bytes: 100)
    )
    for cause in 1...10 { #expect(harness.results.actions(for: cause) == [cached]) }
    #expect(harness.transport.requests.count == 1)
    #expect(FileManager.default.contents(atPath: Self.expectedPath(harness, bytes)) == Data(bytes))
  }

  @Test func concurrentWaitersJoinTheDownloadInFlight() async {
    let calls = Mutex(0)
    let gate = AsyncGate()
    let folder = Harness.makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let cache = ImageCache(directory: folder, capacity: 1 << 20) { _ throws(RunnerFailure) in
      calls.withLock { $0 += 1 }
      await gate.wait()
      return Self.png(1)
    }
    let results = await withTaskGroup(of: Result<Action.ImageCached, RunnerFailure>.self) { group in
      for _ in 0..<10 { group.addTask { await cache.image("https://img.example/a.png") } }
      await waitUntil("ten requests waiting") { await cache.requestsWaiting >= 10 }
      #expect(await cache.downloadsInFlight == 1)
      gate.open()
      var all: [Result<Action.ImageCached, RunnerFailure>] = []
      for await result in group { all.append(result) }
      return all
    }
    #expect(calls.withLock { $0 } == 1)
    #expect(results.count == 10)
    #expect(Set(results.compactMap { try? $0.get().path }).count == 1)
  }

  @Test func oneCancelledRequestDoesNotStopTheSharedDownload() async {
    let harness = Harness(holding: true) { _ in Self.image(Self.png(3)) }
    harness.start(.cacheImage(url: "https://img.example/b.png"), cause: 1)
    harness.start(.cacheImage(url: "https://img.example/b.png"), cause: 2)
    await harness.transport.waitForHeld(count: 1)
    harness.start(.cancel(seq: 1), cause: 3)
    #expect(await harness.results.next(for: 1).failure?.kind == .cancelled)
    harness.transport.releaseAll()
    guard case .imageCached(let cached) = await harness.results.next(for: 2) else {
      Issue.record("the second request should still get the image")
      return
    }
    #expect(cached.bytes == 100)
    #expect(harness.transport.requests.count == 1)
  }

  @Test func identicalImagesAtTwoURLsShareOneFile() async {
    let harness = Harness { _ in Self.image(Self.png(9)) }
    let a = await harness.run(.cacheImage(url: "https://one.example/x.png"), cause: 1)
    let b = await harness.run(.cacheImage(url: "https://two.example/y.png"), cause: 2)
    guard case .imageCached(let first) = a, case .imageCached(let second) = b else {
      Issue.record("expected two cached images")
      return
    }
    #expect(first.path == second.path)
    let files = try? FileManager.default.contentsOfDirectory(atPath: harness.directory + "/images")
    #expect(files?.sorted() == [URL(fileURLWithPath: first.path).lastPathComponent, "index.json"])
  }

  @Test func theLeastRecentlyUsedImageIsEvictedWhenTheCacheIsFull() async {
    let harness = Harness(
      configure: { $0.imageCacheBytes = 250 },
      respond: { request in
        Self.image(Self.png(UInt8(request.url.utf8.last ?? 0)))
      })
    _ = await harness.run(.cacheImage(url: "https://img.example/a"), cause: 1)
    _ = await harness.run(.cacheImage(url: "https://img.example/b"), cause: 2)
    // Using a again makes b the least recently used, so adding c evicts b.
    _ = await harness.run(.cacheImage(url: "https://img.example/a"), cause: 3)
    _ = await harness.run(.cacheImage(url: "https://img.example/c"), cause: 4)
    #expect(harness.transport.requests.count == 3)
    #expect(
      !FileManager.default.fileExists(
        atPath: Self.expectedPath(harness, Self.png(UInt8(ascii: "b")))))
    #expect(
      FileManager.default.fileExists(
        atPath: Self.expectedPath(harness, Self.png(UInt8(ascii: "a")))))
    _ = await harness.run(.cacheImage(url: "https://img.example/a"), cause: 5)
    #expect(harness.transport.requests.count == 3)
    _ = await harness.run(.cacheImage(url: "https://img.example/b"), cause: 6)
    #expect(harness.transport.requests.count == 4)
  }

  @Test func theCacheSurvivesARestart() async {
    let folder = Harness.makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let downloads = Mutex(0)
    func cache() -> ImageCache {
      ImageCache(directory: folder + "/images", capacity: 1 << 20) { _ throws(RunnerFailure) in
        downloads.withLock { $0 += 1 }
        return Self.png(5)
      }
    }
    let first = await cache().image("https://img.example/k.png")
    let second = await cache().image("https://img.example/k.png")
    #expect((try? first.get()) == (try? second.get()))
    #expect((try? first.get()) != nil)
    #expect(downloads.withLock { $0 } == 1)
  }

  @Test func aDamagedIndexIsRebuiltAndStrayFilesRemoved() async throws {
    let folder = Harness.makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let images = folder + "/images"
    try FileManager.default.createDirectory(atPath: images, withIntermediateDirectories: true)
    try "{broken".write(toFile: images + "/index.json", atomically: true, encoding: .utf8)
    try "stray".write(toFile: images + "/leftover.tmp", atomically: true, encoding: .utf8)
    let cache = ImageCache(directory: images, capacity: 1 << 20) { _ throws(RunnerFailure) in
      Self.png(2)
    }
    let cached = try await cache.image("https://img.example/z.png").get()
    #expect(!FileManager.default.fileExists(atPath: images + "/leftover.tmp"))
    #expect(FileManager.default.fileExists(atPath: cached.path))
    let index = try String(contentsOfFile: images + "/index.json", encoding: .utf8)
    #expect(index.contains("https://img.example/z.png"))
  }

  @Test func aPageThatIsNotAnImageIsRefused() async {
    let harness = Harness { _ in
      TransportResponse(
        status: 200, headers: ["Content-Type": "text/html"], body: Array("<html>login</html>".utf8))
    }
    let result = await harness.run(.cacheImage(url: "https://img.example/x.png?sig=private"))
    #expect(result.failure?.kind == .badResponse)
    #expect(result.failure?.message == "https://img.example/x.png is not an image (text/html)")
    #expect(
      (try? FileManager.default.contentsOfDirectory(atPath: harness.directory + "/images"))?
        .contains { $0.hasSuffix(".png") } != true)
  }

  @Test func imageDownloadsFollowRedirectsWithTheImageLimits() async {
    let harness = Harness(
      configure: { $0.maximumImageBytes = 4096 },
      respond: { request in
        throw TransportError.tooLarge(limit: request.maximumBodyBytes)
      })
    let result = await harness.run(.cacheImage(url: "https://img.example/huge.png"))
    #expect(result.failure?.kind == .tooLarge)
    let request = harness.transport.requests[0]
    #expect(request.maximumBodyBytes == 4096)
    #expect(request.followsRedirects)
    #expect(request.totalTimeout == 30)
  }

  @Test func aMissingImageIsAnHTTPFailure() async {
    let harness = Harness { _ in TransportResponse(status: 404) }
    let result = await harness.run(.cacheImage(url: "https://img.example/gone.png"))
    #expect(result.failure?.kind == .http)
    #expect(result.failure?.status == 404)
  }
}

/// A one-shot gate tasks can wait on until a test opens it.
final class AsyncGate: Sendable {
  private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

  func wait() async {
    await withCheckedContinuation { continuation in
      let isOpen = state.withLock { state -> Bool in
        if state.open { return true }
        state.waiters.append(continuation)
        return false
      }
      if isOpen { continuation.resume() }
    }
  }

  func open() {
    let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      state.open = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }
}
