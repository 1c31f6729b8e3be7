public import SusiClock
public import SusiCore

extension ManualTimeSource {
  /// A time source whose wall clock reads `start`.
  public convenience init(_ start: Timestamp) {
    self.init(millisecondsSince1970: start.milliseconds)
  }

  /// Sets the wall clock to `moment`, forwards or back; monotonic time does not move.
  public func setWallClock(to moment: Timestamp) {
    setWallClock(millisecondsSince1970: moment.milliseconds)
  }
}
