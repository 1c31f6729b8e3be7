// Snapshots: the store hands its book to a `SnapshotKeeper` after each event.

extension Store {
  /// Has `keeper` write a snapshot every `keeper.every` events from now on.
  public func keepSnapshots(_ keeper: SnapshotKeeper) { snapshots = keeper }

  /// Writes the snapshot of a clean stop, when one is worth writing (`SnapshotKeeper.finish`).
  /// Call after `close()`, when nothing more can be appended.
  /// A store that failed writes none: its book may hold events the log does not.
  public func finishSnapshots() {
    switch failure {
    case nil, .closed?: snapshots?.finish(book)
    default: return
    }
  }
}
