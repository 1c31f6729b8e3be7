/// The requests asked for and not yet answered, by the seq of the asking event (in seq order),
/// with an index by superseding key: starting a keyed request finds the older ones with its key
/// without looking at every request in flight (a replay of a busy log starts thousands of
/// requests).
public struct InFlightRequests: Equatable, Sendable, Sequence, ExpressibleByDictionaryLiteral {
  private var bySeq = SeqMap<InFlightRequest>()
  /// The seqs of the requests in flight with each key.
  private var byKey: [String: Set<Int>] = [:]

  public init() {}

  public init(dictionaryLiteral elements: (Int, InFlightRequest)...) {
    for (seq, request) in elements { self[seq] = request }
  }

  public subscript(seq: Int) -> InFlightRequest? {
    get { bySeq[seq] }
    set {
      // One look-up in `bySeq`, which also hands back the request it replaces.
      let old =
        if let newValue { bySeq.updateValue(newValue, forKey: seq) } else {
          bySeq.removeValue(forKey: seq)
        }
      if let key = old?.key { unindex(seq, key: key) }
      if let key = newValue?.key { byKey[key, default: []].insert(seq) }
    }
  }

  /// Removes and returns the request asked for by `seq`.
  @discardableResult
  public mutating func removeValue(forKey seq: Int) -> InFlightRequest? {
    removeValue(forKey: seq) { _ in true }
  }

  /// Removes and returns the request asked for by `seq` when `matches` accepts it; one look-up
  /// (a chat's reply ends its request on every exchange).
  @discardableResult
  public mutating func removeValue(
    forKey seq: Int, where matches: (InFlightRequest) -> Bool
  ) -> InFlightRequest? {
    guard let request = bySeq.removeValue(forKey: seq, where: matches) else { return nil }
    if let key = request.key { unindex(seq, key: key) }
    return request
  }

  /// The seqs of the requests in flight with `key`, oldest first.
  public func seqs(withKey key: String) -> [Int] { byKey[key].map { $0.sorted() } ?? [] }

  /// The seqs of the requests in flight, in increasing order.
  public var keys: [Int] { bySeq.keys }
  public var count: Int { bySeq.count }
  public var isEmpty: Bool { bySeq.isEmpty }

  /// The requests in increasing seq order.
  public func makeIterator() -> SeqMap<InFlightRequest>.Iterator { bySeq.makeIterator() }

  public static func == (a: InFlightRequests, b: InFlightRequests) -> Bool { a.bySeq == b.bySeq }

  private mutating func unindex(_ seq: Int, key: String) {
    byKey[key]?.remove(seq)
    if byKey[key]?.isEmpty == true { byKey[key] = nil }
  }
}
