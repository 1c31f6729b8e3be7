import SusiCrypto
import Synchronization

/// A seedable random number source shared by every task of a runner: good enough for spreading
/// retries. A fixed seed makes every backoff of a test run predictable; without one the seed
/// comes from the operating system.
final class RandomSource: Sendable {
  private let generator: Mutex<SeededRandom>

  init(seed: UInt64?) {
    let initial =
      seed
      ?? Digest.randomBytes(8).reduce(UInt64(0)) { ($0 << 8) | UInt64($1) }
    generator = Mutex(SeededRandom(seed: initial))
  }

  /// The next 64 random bits.
  func next() -> UInt64 {
    generator.withLock { $0.next() }
  }

  /// A uniformly random value in `0...bound` (0 when `bound` is not positive).
  func next(upTo bound: Int64) -> Int64 {
    guard bound > 0 else { return 0 }
    let range = UInt64(bound) + 1
    // Rejection sampling keeps the distribution uniform.
    let limit = UInt64.max - UInt64.max % range
    while true {
      let value = next()
      if value < limit { return Int64(value % range) }
    }
  }
}
