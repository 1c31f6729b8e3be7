import SusiClock
import SusiCore
import SusiHTTPClient
import SusiHTTPTesting
import SusiHTTPTypes
import SusiRunner
import SusiTesting
import Testing

@testable import SusiRunner

/// Web search (DuckDuckGo Instant Answer format) and link previews.
@Suite(.hangLimit)
struct WebTests {
  static let instantAnswer = """
    {
      "Heading": "Linux",
      "AbstractText": "Linux is a family of open-source Unix-like operating systems.",
      "AbstractURL": "https://en.wikipedia.org/wiki/Linux",
      "Image": "/i/linux.png",
      "Results": [],
      "RelatedTopics": [
        {"Result": "<a href=\\"http://duckduckgo.com/Access_Linux_Platform\\">Access Linux Platform</a> - The Access Linux Platform, once referred to as a &quot;next-generation version of the Palm OS&quot; is an open source-based operating system.",
         "Icon": {"URL": "", "Height": "", "Width": ""},
         "FirstURL": "http://duckduckgo.com/Access_Linux_Platform",
         "Text": "Access Linux Platform - The Access Linux Platform, once referred to as a \\"next-generation version of the Palm OS\\" is an open source-based operating system."},
        {"Name": "Operating systems",
         "Topics": [
           {"Result": "<a href=\\"https://duckduckgo.com/Ubuntu\\">Ubuntu</a>A Linux distribution.",
            "Icon": {"URL": "/i/ubuntu.png", "Height": 16, "Width": 16},
            "FirstURL": "https://duckduckgo.com/Ubuntu", "Text": "Ubuntu A Linux distribution."},
           {"FirstURL": "https://duckduckgo.com/Debian", "Text": "Debian", "Icon": {"URL": "https://cdn.example/d.png"}}
         ]},
        {"Text": "no link here"},
        {"FirstURL": "https://en.wikipedia.org/wiki/Linux", "Text": "duplicate of the abstract"}
      ],
      "Type": "A"
    }
    """

  @Test func searchResultsComeFromTheAbstractAndEveryTopic() async {
    let harness = Harness { _ in .json(Self.instantAnswer, contentType: "application/x-javascript")
    }
    let result = await harness.run(.webSearch(query: "linux & unix"))
    #expect(
      result
        == .websearchLoaded(
          .init(
            query: "linux & unix",
            results: [
              SearchResult(
                title: "Linux",
                description: "Linux is a family of open-source Unix-like operating systems.",
                link: "https://en.wikipedia.org/wiki/Linux", icon: "https://search.test/i/linux.png"
              ),
              SearchResult(
                title: "Access Linux Platform",
                description:
                  "The Access Linux Platform, once referred to as a \"next-generation version of the Palm OS\" is an open source-based operating system.",
                link: "http://duckduckgo.com/Access_Linux_Platform"),
              SearchResult(
                title: "Ubuntu", description: "A Linux distribution.",
                link: "https://duckduckgo.com/Ubuntu",
                icon: "https://search.test/i/ubuntu.png"),
              SearchResult(
                title: "Debian", link: "https://duckduckgo.com/Debian",
                icon: "https://cdn.example/d.png"),
            ])))
    let request = harness.transport.requests[0]
    #expect(request.url == "https://search.test/?q=linux%20%26%20unix&format=json&no_redirect=1")
  }

  @Test func anEmptyInstantAnswerHasNoResults() async {
    let harness = Harness { _ in
      .json(#"{"Heading":"","AbstractURL":"","RelatedTopics":[],"Results":[]}"#)
    }
    #expect(
      await harness.run(.webSearch(query: "zzz"))
        == .websearchLoaded(.init(query: "zzz", results: [])))
  }

  @Test func theSearchURLIsConfigurable() async {
    let harness = Harness(
      configure: { $0.websearchURL = "http://127.0.0.1:9/ddg?t=susi" },
      respond: { _ in
        .json("{}")
      })
    _ = await harness.run(.webSearch(query: "x"))
    #expect(
      harness.transport.requests[0].url
        == "http://127.0.0.1:9/ddg?t=susi&q=x&format=json&no_redirect=1")
  }

  @Test func aSearchServiceErrorIsTyped() async {
    let harness = Harness(
      configure: { $0.retryPolicy = .never },
      respond: { _ in
        TransportResponse(status: 500)
      })
    let result = await harness.run(.webSearch(query: "x"))
    #expect(result.failure?.kind == .http)
    #expect(result.failure?.message.contains("https://search.test/") == true)
  }

  static func page(
    _ html: String, contentType: String = "text/html; charset=utf-8", finalURL: String? = nil
  )
    -> FakeTransport.Responder
  {
    { _ in
      TransportResponse(
        status: 200, headers: ["Content-Type": contentType], body: Array(html.utf8),
        finalURL: finalURL)
    }
  }

  @Test func previewsPreferOpenGraphAndResolveRelativeImages() async {
    let html = """
      <!doctype html><html><head>
      <title>Plain &amp; simple</title>
      <meta content="A &quot;great&quot; page" property="og:description">
      <META PROPERTY='og:title' CONTENT='The OG   title'>
      <meta name=description content=ignored-because-og-wins>
      <meta property="og:image" content="../img/card.png?x=1&amp;y=2" />
      <script>var s = "<meta property='og:title' content='not this'>";</script>
      </head><body>…</body></html>
      """
    let harness = Harness(respond: Self.page(html))
    let result = await harness.run(.fetchLinkPreview(url: "https://site.example/blog/post.html"))
    #expect(
      result
        == .linkPreviewLoaded(
          .init(
            url: "https://site.example/blog/post.html", title: "The OG title",
            description: "A \"great\" page",
            image: "https://site.example/img/card.png?x=1&y=2")))
    let request = harness.transport.requests[0]
    #expect(request.followsRedirects)
    #expect(request.truncatesLongBodies)
    #expect(request.maximumBodyBytes == 1 << 20)
    #expect(request.totalTimeout == 10)
  }

  @Test func previewsFallBackToTitleAndMetaDescription() async {
    let html =
      "<html><head><!-- <title>comment</title> --><TITLE>\n  Hello &#8211; World  </TITLE><meta name=\"Description\" content=\"Short &#x27;text&#x27;\"></head></html>"
    let harness = Harness(respond: Self.page(html))
    #expect(
      await harness.run(.fetchLinkPreview(url: "http://x.example/"))
        == .linkPreviewLoaded(
          .init(
            url: "http://x.example/", title: "Hello \u{2013} World", description: "Short 'text'")))
  }

  @Test func relativeImagesResolveAgainstTheFinalURLAfterRedirects() async {
    let html = #"<meta property="og:image" content="/logo.png">"#
    let harness = Harness(respond: Self.page(html, finalURL: "https://www.example.org/landing"))
    guard
      case .linkPreviewLoaded(let preview) = await harness.run(
        .fetchLinkPreview(url: "http://example.org/"))
    else {
      Issue.record("expected a preview")
      return
    }
    #expect(preview.image == "https://www.example.org/logo.png")
  }

  @Test func theHeaderCharsetIsHonoured() async {
    // "Café – Über" in windows-1252.
    let bytes: [UInt8] =
      Array("<title>Caf".utf8) + [0xE9, 0x20, 0x96, 0x20, 0xDC] + Array("ber</title>".utf8)
    let harness = Harness { _ in
      TransportResponse(
        status: 200, headers: ["Content-Type": "text/html; charset=\"ISO-8859-1\""], body: bytes)
    }
    guard
      case .linkPreviewLoaded(let preview) = await harness.run(
        .fetchLinkPreview(url: "http://x.example/"))
    else { return }
    #expect(preview.title == "Café \u{2013} Über")
  }

  @Test func aMetaCharsetIsHonouredWhenTheHeaderHasNone() async {
    let bytes: [UInt8] =
      Array("<meta charset=windows-1252><title>".utf8) + [0x93, 0x51, 0x94] + Array("</title>".utf8)
    let harness = Harness { _ in
      TransportResponse(status: 200, headers: ["Content-Type": "text/html"], body: bytes)
    }
    guard
      case .linkPreviewLoaded(let preview) = await harness.run(
        .fetchLinkPreview(url: "http://x.example/"))
    else { return }
    #expect(preview.title == "\u{201C}Q\u{201D}")
  }

  @Test func utf8PagesAndInvalidBytesDoNotBreakThePreview() async {
    let bytes: [UInt8] = Array("<title>Grüße ".utf8) + [0xFF, 0xFE] + Array("</title>".utf8)
    let harness = Harness { _ in
      TransportResponse(status: 200, headers: ["Content-Type": "text/html"], body: bytes)
    }
    guard
      case .linkPreviewLoaded(let preview) = await harness.run(
        .fetchLinkPreview(url: "http://x.example/"))
    else { return }
    #expect(preview.title == "Grüße \u{FFFD}\u{FFFD}")
  }

  @Test func anImageLinkPreviewsAsItself() async {
    let harness = Harness(respond: Self.page("\u{89}PNG", contentType: "image/png"))
    #expect(
      await harness.run(.fetchLinkPreview(url: "https://x.example/a.png"))
        == .linkPreviewLoaded(
          .init(url: "https://x.example/a.png", image: "https://x.example/a.png")))
  }

  @Test func aPageWithNothingToSayGivesAnEmptyPreview() async {
    let harness = Harness(respond: Self.page("just text <b>bold</b> <meta> <title unterminated"))
    #expect(
      await harness.run(.fetchLinkPreview(url: "https://x.example/"))
        == .linkPreviewLoaded(.init(url: "https://x.example/")))
  }

  @Test func aMissingPageIsAnHTTPFailure() async {
    let harness = Harness(
      configure: { $0.retryPolicy = .never },
      respond: { _ in
        TransportResponse(status: 404, body: Array("<title>404 Not Found</title>".utf8))
      })
    let result = await harness.run(.fetchLinkPreview(url: "https://x.example/gone?secret=1"))
    #expect(result.failure == RequestError(kind: .http, status: 404, message: "Not Found"))
  }

  @Test func aSlowPageTimesOutAfterThePreviewLimit() async {
    let harness = Harness(holding: true) { _ in .json("") }
    harness.start(.fetchLinkPreview(url: "https://slow.example/?q=private"), cause: 1)
    await harness.transport.waitForHeld(count: 1)
    // A link preview is a plain GET, so a timeout is retried; three attempts of 10 s each.
    let pump = harness.clock.autoAdvance(sleepsUpTo: 10_000)
    let result = await harness.results.next(for: 1)
    pump.cancel()
    #expect(result.failure?.kind == .timeout)
    #expect(
      result.failure?.message == "https://slow.example/ did not answer in time; try again later")
    #expect(harness.transport.requests.count == 3)
  }

  @Test func aTitleCutOffByTheSizeLimitIsIgnored() {
    let html =
      "<meta property=\"og:image\" content=\"/a.png\"><title>Long title"
      + String(repeating: "x", count: 100)
    let preview = LinkPreviewDecoder.preview(
      Array(html.utf8.prefix(60)), headerCharset: nil, pageURL: "https://x.example/")
    #expect(preview == .init(image: "https://x.example/a.png"))
  }
}
