public import Testing

/// How long a test waits for something before it calls it a hang, in seconds of real time.
///
/// Not a measure of speed: the whole suite runs at once, every test's tasks queue on the same
/// few threads, and on a 2-core machine a test whose work takes milliseconds alone has been seen
/// to finish two minutes after it started. The limit sits well above that, so only a real hang
/// trips it.
public let hangLimitSeconds = 300

extension Trait where Self == TimeLimitTrait {
  /// The time limit for a test that could hang: longer than `hangLimitSeconds`, so a wait that
  /// runs out reports what it waited for before the limit cuts the test off.
  public static var hangLimit: Self { .timeLimit(.minutes(10)) }
}
