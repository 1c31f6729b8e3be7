import SusiHTTPClient
import Synchronization

/// Spaces calls to the same SUSI path so they respect the server's DoS window: the real server
/// answers a host that calls the same servlet again within the window with `503` `your request
/// frequency is too high`, before doing anything.
///
/// The gap is the configured one (0 = none) or, once the server has refused for frequency, a
/// learned one: 250 ms after the first refusal, doubled on each further one, at most 1 s.
final class PathPacer: Sendable {
  private struct Path {
    /// When the next call may go, in the runner clock's milliseconds.
    var nextFree: Int64 = 0
    var learned: Int64 = 0
  }

  /// The configured least gap between two calls to one path, in milliseconds.
  let gap: Int64
  private let paths = Mutex<[String: Path]>([:])

  static let firstLearnedGap: Int64 = 250
  static let largestLearnedGap: Int64 = 1000

  init(gap: Int64) { self.gap = max(0, gap) }

  /// Reserves the next slot for `key` (a server URL and path) at `now`, and returns how long
  /// to wait for it in milliseconds.
  func reserve(_ key: String, now: Int64) -> Int64 {
    paths.withLock { paths in
      let learned = paths[key]?.learned ?? 0
      let interval = max(gap, learned)
      guard interval > 0 else { return 0 }
      var path = paths[key] ?? Path()
      let start = max(now, path.nextFree)
      path.nextFree = start + interval
      paths[key] = path
      return start - now
    }
  }

  /// Notes a frequency refusal for `key`: its calls are spaced further from now on.
  func refused(_ key: String) {
    paths.withLock { paths in
      var path = paths[key] ?? Path()
      path.learned = min(Self.largestLearnedGap, max(Self.firstLearnedGap, path.learned * 2))
      paths[key] = path
    }
  }

  /// Whether `response` is the SUSI server's refusal for calling a servlet too often.
  static func isFrequencyRefusal(_ response: TransportResponse) -> Bool {
    response.status == 503
      && String(decoding: response.body.prefix(4096), as: UTF8.self).lowercased()
        .contains("frequency is too high")
  }
}
