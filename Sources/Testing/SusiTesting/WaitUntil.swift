public import Testing

/// Yields until `condition` holds. After `seconds` of real time it records a failure and returns,
/// so a regression fails the test instead of hanging the run.
public func waitUntil(
  _ what: String, within seconds: Int = 60, sourceLocation: SourceLocation = #_sourceLocation,
  _ condition: () async -> Bool
) async {
  let deadline = ContinuousClock.now + .seconds(seconds)
  while await !condition() {
    guard ContinuousClock.now < deadline else {
      Issue.record("waited \(seconds) s for \(what)", sourceLocation: sourceLocation)
      return
    }
    await Task.yield()
  }
}
