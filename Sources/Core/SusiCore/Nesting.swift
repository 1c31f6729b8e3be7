import SusiJSON

/// How deep JSON may nest, so that whatever susi keeps from outside reads back.
///
/// A value from outside (a table cell or an action kept whole from a server's reply, the `id` a
/// program gave its intent) ends up inside more JSON than it arrived in: a log record's envelope
/// and payload, a planned answer's list, a snapshot's body and state. Text from outside is read
/// at most `outside` deep, `envelope` levels less than `records`, more than any of those
/// wrappings adds (a table cell of a planned answer in a snapshot's requests in flight sits four
/// levels deeper than in the reply that carried it). Records and snapshots are read `envelope`
/// levels deeper than `records` again: releases before these limits read replies 256 deep and
/// wrote lines up to three levels deeper, and those logs must still open.
public enum Nesting {
  /// The deepest a log record or a snapshot written now nests.
  public static let records = JSONParser.maximumDepth
  /// The levels kept free for what records and snapshots wrap around a value from outside.
  public static let envelope = 8
  /// The deepest text from outside may nest: a server's reply, an intent from another program.
  public static let outside = records - envelope
  /// The deepest a log record or snapshot is read (and the state's JSON built from one).
  public static let readable = records + envelope
}
