public import SusiHTTPTesting
public import Testing

/// Returns once `condition` holds, checking it again and again. After `seconds` of real time
/// (`hangLimitSeconds` unless told) it records a failure and returns, so a regression fails the
/// test instead of hanging the run.
///
/// The first checks follow each other at once (a condition a few task hops away holds without
/// delay); after that the checks are spaced out, up to 10 ms apart, so a long wait leaves the
/// machine's cores to the work it waits for instead of spinning on one of them.
public func waitUntil(
  _ what: String, within seconds: Int = hangLimitSeconds,
  sourceLocation: SourceLocation = #_sourceLocation,
  _ condition: () async -> Bool
) async {
  let deadline = ContinuousClock.now + .seconds(seconds)
  var checks = 0
  while await !condition() {
    guard ContinuousClock.now < deadline else {
      Issue.record("waited \(seconds) s for \(what)", sourceLocation: sourceLocation)
      return
    }
    checks += 1
    if checks < 100 {
      await Task.yield()
    } else {
      // A pause between checks, not a guess at how long the work takes: the loop still ends
      // at the first check after the condition holds.
      try? await Task.sleep(for: .microseconds(min(10_000, 100 * (checks - 99))))
    }
  }
}
