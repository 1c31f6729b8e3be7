import SusiCore
import Testing

@Suite struct SeqMapTests {
  /// A small deterministic generator (xorshift), so a failure can be replayed.
  struct Generator {
    var state: UInt64
    mutating func next(_ bound: Int) -> Int {
      state ^= state << 13
      state ^= state >> 7
      state ^= state << 17
      return Int(state % UInt64(bound))
    }
  }

  /// Seqs mostly added in increasing order, some added out of order or again, removed in any
  /// order (most of the oldest first, as requests end), changed in place: the map holds what a
  /// dictionary holds after the same operations, and lists it in increasing seq.
  @Test(arguments: [1, 2, 3, 4])
  func holdsWhatADictionaryHoldsAfterTheSameChanges(seed: Int) {
    var generator = Generator(state: 0x9E37_79B9_7F4A_7C15 &+ UInt64(seed))
    var map = SeqMap<String>()
    var model: [Int: String] = [:]
    var nextSeq = 1
    for step in 0..<20_000 {
      switch generator.next(10) {
      case 0...3:
        map[nextSeq] = "v\(step)"
        model[nextSeq] = "v\(step)"
        nextSeq += generator.next(3) + 1
      case 4:
        // Out of order, or an existing seq again.
        let seq = generator.next(nextSeq + 5)
        #expect(
          map.updateValue("w\(step)", forKey: seq) == model.updateValue("w\(step)", forKey: seq))
      case 5...7:
        // Mostly the oldest ones, as requests end.
        let oldest = model.keys.min() ?? 0
        let seq = generator.next(4) == 0 ? generator.next(nextSeq + 1) : oldest + generator.next(3)
        #expect(map.removeValue(forKey: seq) == model.removeValue(forKey: seq))
      case 8:
        let seq = generator.next(nextSeq + 1)
        map.modifyValue(forKey: seq) { value in value = value.map { $0 + "!" } }
        if let value = model[seq] { model[seq] = value + "!" }
      default:
        let seq = generator.next(nextSeq + 1)
        let refuse = generator.next(2) == 0
        let removed = map.removeValue(forKey: seq) { _ in !refuse }
        #expect(removed == (refuse ? nil : model.removeValue(forKey: seq)))
      }
      #expect(map.count == model.count)
      if step % 500 == 0 {
        #expect(map.map(\.key) == model.keys.sorted())
        #expect(map.map(\.value) == model.keys.sorted().map { model[$0]! })
      }
    }
    #expect(map.keys == model.keys.sorted())
    for seq in 0...nextSeq { #expect(map[seq] == model[seq]) }
  }

  @Test func equalMapsHoldTheSameValuesWhateverTheyHeldBefore() {
    var a: SeqMap<Int> = [1: 10, 2: 20, 3: 30]
    var b = SeqMap<Int>()
    for seq in 1...200 { b[seq] = seq * 10 }
    for seq in 4...200 { b[seq] = nil }
    #expect(a == b)
    a.modifyValue(forKey: 2) { $0 = nil }
    #expect(a != b)
    b.removeValue(forKey: 2)
    #expect(a == b)
    #expect(a.isEmpty == false && a.count == 2)
  }

  @Test func changingAValueToNilRemovesIt() {
    var map: SeqMap<Int> = [5: 1]
    map.modifyValue(forKey: 5) { $0 = nil }
    #expect(map.isEmpty)
    #expect(map[5] == nil)
    map.modifyValue(forKey: 5) { $0 = 3 }
    #expect(map.isEmpty)
  }
}
