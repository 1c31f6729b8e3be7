/// The requests asked for and not yet answered, by the seq of the asking event (in seq order),
/// with an index by superseding key: starting a keyed request finds the older ones with its key
/// without looking at every request in flight (a replay of a busy log starts thousands of
/// requests).
public struct InFlightRequests: Equatable, Sendable, Sequence, ExpressibleByDictionaryLiteral {
  private var bySeq = SeqMap<InFlightRequest>()
  /// The seqs of the requests in flight with each key, in increasing order.
  private var byKey: [String: KeyedSeqs] = [:]

  public init() {}

  public init(dictionaryLiteral elements: (Int, InFlightRequest)...) {
    for (seq, request) in elements { self[seq] = request }
  }

  public subscript(seq: Int) -> InFlightRequest? {
    get { bySeq[seq] }
    set {
      // The key is taken before the request moves into `bySeq`: read after, it would cost a copy
      // of the whole request.
      let newKey = newValue?.key
      // One look-up in `bySeq`, which also hands back the request it replaces.
      let old =
        if let newValue { bySeq.updateValue(newValue, forKey: seq) } else {
          bySeq.removeValue(forKey: seq)
        }
      if let key = old?.key { unindex(seq, key: key) }
      if let key = newKey { byKey[key, default: KeyedSeqs()].insert(seq) }
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
  public func seqs(withKey key: String) -> [Int] { byKey[key]?.seqs ?? [] }

  /// The seqs of the requests in flight, in increasing order.
  public var keys: [Int] { bySeq.keys }
  public var count: Int { bySeq.count }
  public var isEmpty: Bool { bySeq.isEmpty }

  /// The requests in increasing seq order.
  public func makeIterator() -> SeqMap<InFlightRequest>.Iterator { bySeq.makeIterator() }

  public static func == (a: InFlightRequests, b: InFlightRequests) -> Bool { a.bySeq == b.bySeq }

  /// Takes `seq` out of the index under `key`: one look-up of the key.
  private mutating func unindex(_ seq: Int, key: String) {
    guard let index = byKey.index(forKey: key) else { return }
    if byKey.values[index].remove(seq) { byKey.remove(at: index) }
  }
}

/// The seqs of the requests in flight with one superseding key, in increasing order. Mostly one
/// (a request is answered before the next one about the same thing), kept without allocating.
private struct KeyedSeqs {
  private var first = 0
  private var count = 0
  /// The seqs after `first`, when there are more.
  private var rest: [Int] = []

  var seqs: [Int] { count == 0 ? [] : [first] + rest }

  mutating func insert(_ seq: Int) {
    if count == 0 {
      first = seq
    } else {
      var all = seqs
      let place = all.firstIndex { $0 >= seq } ?? all.count
      // A seq is in flight once.
      guard place == all.count || all[place] != seq else { return }
      all.insert(seq, at: place)
      first = all[0]
      rest = Array(all.dropFirst())
    }
    count += 1
  }

  /// Removes `seq`; returns whether none is left.
  mutating func remove(_ seq: Int) -> Bool {
    if count > 0, seq == first {
      if rest.isEmpty {
        count = 0
        return true
      }
      first = rest.removeFirst()
    } else if let place = rest.firstIndex(of: seq) {
      rest.remove(at: place)
    } else {
      return count == 0
    }
    count -= 1
    return count == 0
  }
}
