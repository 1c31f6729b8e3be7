import SusiCore
import SusiCoreTesting
import Testing

@Suite struct WebReducerTests {
  static let invalidURLs = [
    "", "swift.org", "/relative/path", "ftp://swift.org/file", "javascript:alert(1)", "http://",
    "https://user:pw@swift.org/", "http://swift .org", "https://swift.org:0/",
    "mailto:ada@example.org",
  ]

  // MARK: web search

  @Test func rejectsASearchLongerThanAURLCanCarry() {
    var t = ReducerTester()
    t.send(
      .search(.init(query: String(repeating: "a", count: 501))),
      rejected: "the search query is longer than 500 characters")
    let at = t.now
    let longest = String(repeating: "b", count: 500)
    t.send(
      .search(.init(query: longest)),
      { $0.inFlight[2] = InFlightRequest(type: "search", since: at, key: "search:" + longest) },
      effects: [.webSearch(query: longest)])
  }

  @Test func searchAsksForTheTrimmedQuery() {
    var t = ReducerTester()
    let at = t.now
    t.send(
      .search(.init(query: "  swift language \n")),
      { $0.inFlight[1] = InFlightRequest(type: "search", since: at, key: "search:swift language") },
      effects: [.webSearch(query: "swift language")])
  }

  @Test(arguments: ["", "   ", "\n"])
  func searchRejectsAnEmptyQuery(query: String) {
    var t = ReducerTester()
    t.send(.search(.init(query: query)), rejected: "the search query is empty")
  }

  @Test func aSearchSupersedesOnlyAnOlderSearchForTheSameQuery() {
    var t = ReducerTester()
    let at = t.now
    t.send(
      .search(.init(query: "swift")),
      { $0.inFlight[1] = InFlightRequest(type: "search", since: at, key: "search:swift") },
      effects: [.webSearch(query: "swift")])
    t.send(
      .search(.init(query: "kotlin")),
      { $0.inFlight[2] = InFlightRequest(type: "search", since: at, key: "search:kotlin") },
      effects: [.webSearch(query: "kotlin")])
    t.send(
      .search(.init(query: " swift ")),
      { $0.inFlight[3] = InFlightRequest(type: "search", since: at, key: "search:swift") },
      effects: [.supersede(seq: 1), .webSearch(query: "swift")])
  }

  @Test func websearchLoadedStoresTheResultsByQuery() {
    var t = ReducerTester()
    let at = t.now
    let results = [
      SearchResult(
        title: "Swift", description: "A language", link: "https://swift.org",
        icon: "https://swift.org/i.png"),
      SearchResult(title: "Swift (bird)", link: "https://en.wikipedia.org/wiki/Swift"),
    ]
    t.prepare {
      $0.searches = [
        "swift": [SearchResult(title: "stale", link: "https://stale.example")], "other": [],
      ]
      $0.lastErrors = ["search": Fixture.error()]
    }
    let asked = t.send(
      .search(.init(query: "swift")),
      { $0.inFlight[1] = InFlightRequest(type: "search", since: at, key: "search:swift") },
      effects: [.webSearch(query: "swift")])
    t.receive(.websearchLoaded(.init(query: "swift", results: results)), cause: asked) {
      $0.searches["swift"] = results
      $0.inFlight = [:]
      $0.lastErrors = [:]
    }
  }

  // MARK: link previews

  @Test(arguments: [
    "https://swift.org", "http://example.com/a?b=c#d", "HTTPS://Example.com:8443/x",
  ])
  func loadLinkPreviewAsksForAWebPage(url: String) {
    var t = ReducerTester()
    let at = t.now
    t.send(
      .loadLinkPreview(.init(url: url)),
      {
        $0.inFlight[1] = InFlightRequest(
          type: "loadLinkPreview", since: at, key: "loadLinkPreview:\(url)")
      },
      effects: [.fetchLinkPreview(url: url)])
  }

  @Test(arguments: invalidURLs)
  func loadLinkPreviewRejectsAnythingButAnHTTPURL(url: String) {
    var t = ReducerTester()
    t.send(
      .loadLinkPreview(.init(url: url)),
      rejected: "'\(url)' is not an http(s) URL")
  }

  @Test func aPreviewRequestSupersedesAnOlderOneForTheSameURL() {
    var t = ReducerTester()
    let at = t.now
    let key = "loadLinkPreview:https://swift.org"
    t.send(
      .loadLinkPreview(.init(url: "https://swift.org")),
      { $0.inFlight[1] = InFlightRequest(type: "loadLinkPreview", since: at, key: key) },
      effects: [.fetchLinkPreview(url: "https://swift.org")])
    t.send(
      .loadLinkPreview(.init(url: "https://swift.org")),
      { $0.inFlight[2] = InFlightRequest(type: "loadLinkPreview", since: at, key: key) },
      effects: [.supersede(seq: 1), .fetchLinkPreview(url: "https://swift.org")])
  }

  @Test func linkPreviewLoadedStoresThePreviewByURL() {
    var t = ReducerTester()
    let at = t.now
    let asked = t.send(
      .loadLinkPreview(.init(url: "https://swift.org")),
      {
        $0.inFlight[1] = InFlightRequest(
          type: "loadLinkPreview", since: at, key: "loadLinkPreview:https://swift.org")
      },
      effects: [.fetchLinkPreview(url: "https://swift.org")])
    t.receive(
      .linkPreviewLoaded(
        .init(
          url: "https://swift.org", title: "Swift", description: "Swift is a language",
          image: "https://swift.org/og.png")),
      cause: asked
    ) {
      $0.linkPreviews["https://swift.org"] = LinkPreview(
        url: "https://swift.org", title: "Swift", description: "Swift is a language",
        image: "https://swift.org/og.png")
      $0.inFlight = [:]
    }
    t.receive(.linkPreviewLoaded(.init(url: "https://swift.org")), cause: nil) {
      $0.linkPreviews["https://swift.org"] = LinkPreview(url: "https://swift.org")
    }
  }

  // MARK: image cache

  @Test func cacheImageAsksForTheImageAndIsNeverSuperseded() {
    var t = ReducerTester()
    let at = t.now
    let url = "https://swift.org/logo.png"
    t.send(
      .cacheImage(.init(url: url)),
      { $0.inFlight[1] = InFlightRequest(type: "cacheImage", since: at) },
      effects: [.cacheImage(url: url)])
    t.send(
      .cacheImage(.init(url: url)),
      { $0.inFlight[2] = InFlightRequest(type: "cacheImage", since: at) },
      effects: [.cacheImage(url: url)])
  }

  @Test(arguments: invalidURLs)
  func cacheImageRejectsAnythingButAnHTTPURL(url: String) {
    var t = ReducerTester()
    t.send(
      .cacheImage(.init(url: url)), rejected: "'\(url)' is not an http(s) URL")
  }

  @Test func imageCachedStoresThePathAndSize() {
    var t = ReducerTester()
    let at = t.now
    let url = "https://swift.org/logo.png"
    t.prepare { $0.lastErrors = ["cacheImage": Fixture.error()] }
    let asked = t.send(
      .cacheImage(.init(url: url)),
      { $0.inFlight[1] = InFlightRequest(type: "cacheImage", since: at) },
      effects: [.cacheImage(url: url)])
    t.receive(.imageCached(.init(url: url, path: "/cache/5d41.png", bytes: 2048)), cause: asked) {
      $0.images[url] = CachedImage(path: "/cache/5d41.png", bytes: 2048)
      $0.inFlight = [:]
      $0.lastErrors = [:]
    }
  }
}
