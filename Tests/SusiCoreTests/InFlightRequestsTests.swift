import SusiCore
import Testing

@Suite struct InFlightRequestsTests {
  /// Requests started, replaced under another key or none, and ended in any order (out of seq
  /// order too): the index by key always lists, in increasing seq, exactly the requests in
  /// flight with that key.
  @Test(arguments: [1, 2, 3, 4])
  func theSeqsOfAKeyAreTheRequestsInFlightWithItInSeqOrder(seed: Int) {
    var generator = SeqMapTests.Generator(state: UInt64(seed) &* 0x9E37_79B9_7F4A_7C15)
    let keys: [String?] = ["search:a", "search:b", "loadGroups", nil]
    var requests = InFlightRequests()
    var model: [Int: String?] = [:]
    for _ in 0..<3_000 {
      let seq = 1 + generator.next(40)
      if generator.next(3) == 0 {
        _ = requests.removeValue(forKey: seq)
        model[seq] = nil
      } else {
        let key = keys[generator.next(keys.count)]
        requests[seq] = InFlightRequest(type: "search", since: Fixture.t0, key: key)
        model[seq] = .some(key)
      }
      for key in keys.compactMap({ $0 }) {
        let expected = model.filter { $0.value == key }.keys.sorted()
        #expect(requests.seqs(withKey: key) == expected)
      }
    }
    #expect(requests.keys == model.keys.sorted())
  }

  @Test func aKeyWithNoRequestLeftListsNone() {
    var requests = InFlightRequests()
    for seq in [9, 4, 6] {
      requests[seq] = InFlightRequest(type: "search", since: Fixture.t0, key: "search:a")
    }
    #expect(requests.seqs(withKey: "search:a") == [4, 6, 9])
    requests[6] = nil
    #expect(requests.seqs(withKey: "search:a") == [4, 9])
    _ = requests.removeValue(forKey: 4)
    #expect(requests.seqs(withKey: "search:a") == [9])
    requests[9] = InFlightRequest(type: "search", since: Fixture.t0, key: "search:b")
    #expect(requests.seqs(withKey: "search:a") == [])
    #expect(requests.seqs(withKey: "search:b") == [9])
  }
}
