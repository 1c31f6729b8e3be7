/// Values by event seq, kept in seq order: a log hands out seqs in increasing order, so adding
/// one is an append, and finding one a binary search over a few hundred integers, with no hashing
/// (the requests in flight and the results owed change with every event of a replay).
///
/// A removed value leaves its seq in place, marked empty, until empty places outnumber the values
/// held twice over; then one pass drops them all, so each removal costs a constant amount on
/// average and the storage stays within about three times the values held. Iteration goes in
/// increasing seq.
public struct SeqMap<Value>: Sequence {
  /// Ascending; a removed value's seq stays until the next compaction.
  @usableFromInline var seqs: [Int] = []
  /// `values[i]` belongs to `seqs[i]`; nil once removed.
  @usableFromInline var values: [Value?] = []
  /// Whether `values[i]` holds a value: cheaper to test than the optional itself.
  @usableFromInline var live: [Bool] = []
  /// How many values are held (true entries of `live`).
  @usableFromInline var held = 0

  /// How many values are held.
  @inlinable public var count: Int { held }

  @inlinable public init() {}

  @inlinable public var isEmpty: Bool { count == 0 }

  /// The value for `seq`, or nil; setting nil removes it.
  @inlinable public subscript(seq: Int) -> Value? {
    get {
      guard let place = place(of: seq) else { return nil }
      return values[place]
    }
    set {
      if let newValue {
        updateValue(newValue, forKey: seq)
      } else {
        removeValue(forKey: seq)
      }
    }
  }

  /// Sets the value for `seq` and returns the one it replaces. The value is moved in, not copied.
  @inlinable @discardableResult
  public mutating func updateValue(_ value: consuming Value, forKey seq: Int) -> Value? {
    // The usual case: a seq after every other.
    if seqs.last.map({ $0 < seq }) ?? true {
      seqs.append(seq)
      values.append(value)
      live.append(true)
      held += 1
      return nil
    }
    let place = lowerBound(seq)
    if seqs[place] == seq {
      let old = values[place]
      values[place] = value
      if !live[place] {
        live[place] = true
        held += 1
      }
      return old
    }
    seqs.insert(seq, at: place)
    values.insert(value, at: place)
    live.insert(true, at: place)
    held += 1
    return nil
  }

  /// Removes and returns the value for `seq`.
  @inlinable @discardableResult
  public mutating func removeValue(forKey seq: Int) -> Value? {
    removeValue(forKey: seq) { _ in true }
  }

  /// Removes and returns the value for `seq` when `matches` accepts it; nil (and nothing removed)
  /// otherwise.
  @inlinable @discardableResult
  public mutating func removeValue(forKey seq: Int, where matches: (Value) -> Bool) -> Value? {
    // The value is moved out to be looked at (and back when it does not match): looked at where
    // it lies, it would be copied for `matches` and destroyed there after.
    guard let place = place(of: seq), live[place], let value = values[place].take() else {
      return nil
    }
    guard matches(value) else {
      values[place] = value
      return nil
    }
    live[place] = false
    held -= 1
    compactIfSparse()
    return value
  }

  /// Changes the value for `seq` in place through `body`, which may set it to nil to remove it;
  /// does nothing when there is none.
  @inlinable
  public mutating func modifyValue(forKey seq: Int, _ body: (inout Value?) -> Void) {
    guard let place = place(of: seq), live[place] else { return }
    body(&values[place])
    if values[place] == nil {
      live[place] = false
      held -= 1
      compactIfSparse()
    }
  }

  /// The seqs that hold a value, in increasing order.
  @inlinable public var keys: [Int] {
    var keys: [Int] = []
    keys.reserveCapacity(count)
    for (seq, _) in self { keys.append(seq) }
    return keys
  }

  public struct Iterator: IteratorProtocol {
    @usableFromInline let map: SeqMap
    @usableFromInline var place = 0

    @inlinable init(_ map: SeqMap) { self.map = map }

    @inlinable public mutating func next() -> (key: Int, value: Value)? {
      while place < map.seqs.count {
        defer { place += 1 }
        if map.live[place], let value = map.values[place] { return (map.seqs[place], value) }
      }
      return nil
    }
  }

  @inlinable public func makeIterator() -> Iterator { Iterator(self) }

  /// The index in `seqs` of `seq` when it holds a value or an empty place.
  @inlinable func place(of seq: Int) -> Int? {
    guard let last = seqs.last, seq <= last else { return nil }
    let place = lowerBound(seq)
    return seqs[place] == seq ? place : nil
  }

  /// The index of the first seq not below `seq` (`seqs.count` when all are below).
  @inlinable func lowerBound(_ seq: Int) -> Int {
    seqs.withUnsafeBufferPointer { seqs in
      var size = seqs.count
      guard size > 0 else { return 0 }
      // Halving without a branch on the comparison (a conditional move): the seqs looked for
      // are in no predictable place.
      var low = 0
      while size > 1 {
        let half = size / 2
        low = seqs[low &+ half] < seq ? low &+ half : low
        size -= half
      }
      return seqs[low] < seq ? low &+ 1 : low
    }
  }

  /// Drops the empty places once they outnumber the values twice over (and are more than a
  /// few).
  @inlinable mutating func compactIfSparse() {
    let empty = seqs.count - held
    guard empty > 2 * held, empty >= 64 else { return }
    var kept = 0
    for place in seqs.indices where live[place] {
      if kept != place {
        seqs[kept] = seqs[place]
        values.swapAt(kept, place)
      }
      kept += 1
    }
    seqs.removeLast(seqs.count - kept)
    values.removeLast(values.count - kept)
    live.removeAll(keepingCapacity: true)
    live.append(contentsOf: repeatElement(true, count: kept))
  }
}

extension SeqMap: Equatable where Value: Equatable {
  /// Equal when they hold the same values for the same seqs (empty places do not count).
  @inlinable public static func == (a: SeqMap, b: SeqMap) -> Bool {
    guard a.count == b.count else { return false }
    return a.elementsEqual(b) { $0.key == $1.key && $0.value == $1.value }
  }
}

extension SeqMap: Sendable where Value: Sendable {}

extension SeqMap: ExpressibleByDictionaryLiteral {
  @inlinable public init(dictionaryLiteral elements: (Int, Value)...) {
    for (seq, value) in elements { self[seq] = value }
  }
}
