import SusiJSON

/// How deep JSON from outside may nest, so that whatever susi keeps of it reads back.
///
/// A value from outside (a table cell or an action kept whole from a server's reply, the `id` a
/// program gave its intent) ends up inside more JSON than it arrived in: a log record's envelope
/// and payload, a planned answer's list, a snapshot's body and state. Log records and snapshots
/// are read with the parser's whole depth; text from outside is read `envelope` levels
/// shallower, more than any of those wrappings adds (a table cell of a planned answer in a
/// snapshot's requests in flight sits four levels deeper than in the reply that carried it).
public enum Nesting {
  /// The deepest a log record or a snapshot may nest: what their readers accept.
  public static let records = JSONParser.maximumDepth
  /// The levels kept free for what records and snapshots wrap around a value from outside.
  public static let envelope = 8
  /// The deepest text from outside may nest: a server's reply, an intent from another program.
  public static let outside = records - envelope
}
