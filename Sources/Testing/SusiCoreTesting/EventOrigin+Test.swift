public import SusiCore

extension EventOrigin {
  /// The origin of intents that tests send.
  public static let test = EventOrigin(rawValue: "test")
}
