public import SusiClock
public import SusiCore

extension TimeSource {
  /// The wall-clock time as the timestamp events are stamped with.
  public func now() -> Timestamp { Timestamp(milliseconds: millisecondsSince1970()) }
}
