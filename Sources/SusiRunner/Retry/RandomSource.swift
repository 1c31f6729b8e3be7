import SusiCrypto
import Synchronization

/// A seedable random number source shared by every task of a runner.
///
/// SplitMix64 (Steele, Lea & Flood): tiny, fast and good enough for spreading retries. A fixed
/// seed makes every backoff of a test run predictable; without one the seed comes from the
/// operating system.
final class RandomSource: Sendable {
  private let state: Mutex<UInt64>

  init(seed: UInt64?) {
    let initial =
      seed
      ?? Digest.randomBytes(8).reduce(UInt64(0)) { ($0 << 8) | UInt64($1) }
    state = Mutex(initial)
  }

  /// The next 64 random bits.
  func next() -> UInt64 {
    state.withLock { s in
      s &+= 0x9E37_79B9_7F4A_7C15
      var z = s
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
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
