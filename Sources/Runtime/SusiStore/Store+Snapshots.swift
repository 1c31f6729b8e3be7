// Snapshots: the store hands its book to a `SnapshotKeeper` after each event.

extension Store {
  /// Has `keeper` write a snapshot every `keeper.every` events from now on.
  public func keepSnapshots(_ keeper: SnapshotKeeper) { snapshots = keeper }

  /// Writes the snapshot of a clean stop. Call after `close()`, when nothing more can be appended.
  public func finishSnapshots() {
    snapshots?.finish(book)
  }
}
