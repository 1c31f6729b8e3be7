import SusiCore
import SusiCoreTesting
import Testing

@Suite struct HistoryReducerTests {
  private func date(_ milliseconds: Int64) -> Timestamp { Timestamp(milliseconds: milliseconds) }

  @Test func theFirstPageAsksForTheNewestExchanges() {
    var t = ReducerTester.loggedIn()
    let at = t.now
    t.send(
      .loadHistory(.init()),
      { $0.inFlight[1] = InFlightRequest(type: "loadHistory", since: at, key: "loadHistory") },
      effects: [.fetchHistory(server: "embedded", before: nil)])
  }

  @Test(arguments: [nil, 5] as [Int?])
  func laterPagesAskForExchangesOlderThanTheOldestKnown(remaining: Int?) {
    var t = ReducerTester.loggedIn()
    let at = t.now
    t.prepare {
      $0.history = [Fixture.history("c", at: 3000), Fixture.history("b", at: 2000)]
      $0.historyRemaining = remaining
    }
    t.send(
      .loadHistory(.init()),
      { $0.inFlight[1] = InFlightRequest(type: "loadHistory", since: at, key: "loadHistory") },
      effects: [.fetchHistory(server: "embedded", before: date(2000))])
  }

  @Test func startsAgainFromTheNewestWhenNothingOlderRemains() {
    var t = ReducerTester.loggedIn()
    let at = t.now
    t.prepare {
      $0.history = [Fixture.history("c", at: 3000), Fixture.history("b", at: 2000)]
      $0.historyRemaining = 0
    }
    t.send(
      .loadHistory(.init()),
      { $0.inFlight[1] = InFlightRequest(type: "loadHistory", since: at, key: "loadHistory") },
      effects: [.fetchHistory(server: "embedded", before: nil)])
  }

  @Test func pagesFromTheOldestDatedExchangeWhenSomeHaveNoDate() {
    var t = ReducerTester.loggedIn()
    let at = t.now
    t.prepare {
      $0.history = [
        Fixture.history("c", at: 3000), Fixture.history("b", at: 2000),
        Fixture.history("?", at: nil),
      ]
      $0.historyRemaining = 4
    }
    t.send(
      .loadHistory(.init()),
      { $0.inFlight[1] = InFlightRequest(type: "loadHistory", since: at, key: "loadHistory") },
      effects: [.fetchHistory(server: "embedded", before: date(2000))])
  }

  @Test func aNewPageRequestSupersedesAnOlderOne() {
    var t = ReducerTester.loggedIn()
    let at = t.now
    t.send(
      .loadHistory(.init()),
      { $0.inFlight[1] = InFlightRequest(type: "loadHistory", since: at, key: "loadHistory") },
      effects: [.fetchHistory(server: "embedded", before: nil)])
    t.send(
      .loadHistory(.init()),
      { $0.inFlight[2] = InFlightRequest(type: "loadHistory", since: at, key: "loadHistory") },
      effects: [.supersede(seq: 1), .fetchHistory(server: "embedded", before: nil)])
  }

  @Test func historyLoadedMergesPagesNewestFirstWithoutRepeats() {
    var t = ReducerTester.loggedIn()
    let at = t.now
    let c = Fixture.history("c", at: 3000)
    let b = Fixture.history("b", at: 2000)
    let a = Fixture.history("a", at: 1000)
    t.prepare {
      $0.history = [c, b]
      $0.historyRemaining = 2
      $0.lastErrors = ["loadHistory": Fixture.error()]
    }
    let asked = t.send(
      .loadHistory(.init()),
      { $0.inFlight[1] = InFlightRequest(type: "loadHistory", since: at, key: "loadHistory") },
      effects: [.fetchHistory(server: "embedded", before: date(2000))])
    t.receive(.historyLoaded(.init(entries: [b, a], remaining: 0)), cause: asked) {
      $0.history = [c, b, a]
      $0.historyRemaining = 0
      $0.inFlight = [:]
      $0.lastErrors = [:]
    }
  }

  @Test func newerExchangesAreSortedInFront() {
    var t = ReducerTester.loggedIn()
    let old = Fixture.history("old", at: 1000)
    let newer = Fixture.history("newer", at: 4000)
    let newest = Fixture.history("newest", at: 5000)
    t.prepare { $0.history = [old] }
    t.receive(.historyLoaded(.init(entries: [newer, newest], remaining: 1)), cause: nil) {
      $0.history = [newest, newer, old]
      $0.historyRemaining = 1
    }
  }

  @Test func exchangesDifferingInQueryOrDateAreAllKept() {
    var t = ReducerTester.loggedIn()
    let x1 = Fixture.history("x", at: 1000)
    let y1 = Fixture.history("y", at: 1000)
    let x2 = Fixture.history("x", at: 2000)
    t.prepare { $0.history = [x1] }
    t.receive(.historyLoaded(.init(entries: [x2, y1, x1], remaining: 7)), cause: nil) {
      $0.history = [x2, x1, y1]
      $0.historyRemaining = 7
    }
  }

  @Test func exchangesWithoutADateGoLast() {
    var t = ReducerTester.loggedIn()
    let undated = Fixture.history("undated", at: nil)
    let dated = Fixture.history("dated", at: 10)
    t.receive(.historyLoaded(.init(entries: [undated, dated, undated], remaining: 0)), cause: nil) {
      $0.history = [dated, undated]
      $0.historyRemaining = 0
    }
  }

  @Test func historyLoadedDoesNotCompleteARequestOfAnotherType() {
    var t = ReducerTester.loggedIn()
    t.prepare {
      $0.inFlight[1] = InFlightRequest(type: "sendMessage", since: Fixture.t0)
      $0.lastErrors = ["loadHistory": Fixture.error()]
    }
    t.receive(.historyLoaded(.init(entries: [], remaining: 3)), cause: 1) {
      $0.historyRemaining = 3
    }
  }
}
