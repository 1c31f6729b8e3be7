import SusiCore
import SusiJSON
import SusiTerminal
import Testing

@testable import SusiText

@Suite struct AnswerRenderingTests {
  let renderer = TextRenderer(width: 60, glyphs: .utf8)

  @Test func answerIsItsTextWithLineBreaksKept() {
    #expect(
      renderer.action(.answer(expression: "Hi!\nI'm SUSI", language: "en", mood: nil))
        == "Hi!\nI'm SUSI")
    #expect(
      renderer.action(.answer(expression: "\u{1B}]0;owned\u{7}hi", language: nil, mood: nil))
        == "]0;ownedhi")
  }

  @Test func tableRendersAlignedColumnsOfAnyJSON() {
    let text = renderer.action(
      .table(
        columns: [
          TableColumn(key: "name", header: "Name"), TableColumn(key: "n", header: "Count"),
        ],
        rows: [[.string("中文"), .int(3)], [.string("x"), .double(2.5)], [.null, .int(10)]]))
    #expect(text == "Name  Count\n────  ─────\n中文      3\nx       2.5\n         10")
    let mixed = renderer.action(
      .table(
        columns: [TableColumn(key: "a", header: "A"), TableColumn(key: "b", header: "B")],
        rows: [[.bool(true), .array([1, 2])], [.string("long cell"), .object(["k": "v"])]]))
    #expect(
      mixed == "A          B\n─────────  ─────────\ntrue       [1,2]\nlong cell  {\"k\":\"v\"}")
  }

  @Test func emptyTableIsANotice() {
    #expect(
      renderer.action(.table(columns: [TableColumn(key: "a", header: "A")], rows: []))
        == "[empty table]")
  }

  @Test func rssItemsAreCards() {
    let text = renderer.action(
      .rss(items: [FeedItem(title: "News", description: "Today", link: "https://n.example")]))
    #expect(text == "1. News\n   Today\n   https://n.example")
    #expect(renderer.action(.rss(items: [])) == "[no feed items]")
  }

  @Test func websearchIsAHeadingForTheResults() {
    #expect(renderer.action(.websearch(query: "swift", count: 3)) == "Web search: swift")
  }

  @Test func anchorIsTextThenLink() {
    #expect(
      renderer.action(.anchor(link: "https://susi.ai", text: "SUSI")) == "SUSI <https://susi.ai>")
    #expect(renderer.action(.anchor(link: "https://susi.ai", text: "")) == "https://susi.ai")
  }

  @Test func mapIsCoordinatesAndAnOpenStreetMapLink() {
    #expect(
      renderer.action(.map(latitude: 52.52, longitude: 13.405, zoom: 13))
        == "Map: 52.52, 13.405 (zoom 13)\nhttps://www.openstreetmap.org/?mlat=52.52&mlon=13.405#map=13/52.52/13.405"
    )
    #expect(
      TextRenderer.openStreetMapLink(latitude: -33.8688, longitude: 151.2093, zoom: 30)
        == "https://www.openstreetmap.org/?mlat=-33.8688&mlon=151.2093#map=19/-33.8688/151.2093")
  }

  @Test func videoAndAudioAreLinks() {
    #expect(
      renderer.action(.videoPlay(identifier: "dQw4w9WgXcQ", identifierType: "youtube"))
        == "Video: https://www.youtube.com/watch?v=dQw4w9WgXcQ")
    #expect(
      renderer.action(.audioPlay(identifier: "https://a.example/x.mp3", identifierType: "url"))
        == "Audio: https://a.example/x.mp3")
    #expect(
      renderer.action(.audioPlay(identifier: "track-1", identifierType: "soundcloud"))
        == "Audio: track-1 (soundcloud)")
  }

  @Test func controlActionsAreNotices() {
    #expect(renderer.action(.control(.stop)) == "[stop]")
    #expect(renderer.action(.control(.timerReset)) == "[timer reset]")
    for control in ControlAction.allCases {
      #expect(renderer.action(.control(control)).hasPrefix("["))
    }
    #expect(renderer.action(.audioVolume(volume: 40)) == "[volume 40%]")
    #expect(
      renderer.action(.timerSet(time: "1795255200")) == "[timer set for 2026-11-21 10:00:00 UTC]")
    #expect(renderer.action(.timerSet(time: "tomorrow")) == "[timer set for tomorrow]")
  }

  @Test func piechartIsLabelledPercentageBars() {
    let text = renderer.action(
      .piechart(
        slices: [PieSlice(label: "Germany", value: 75), PieSlice(label: "France", value: 25)],
        unit: "%"))
    let lines = text.split(separator: "\n").map(String.init)
    #expect(lines.count == 2)
    #expect(lines[0].hasPrefix("Germany  ███"))
    #expect(lines[0].hasSuffix(" 75.0%"))
    #expect(lines[1].hasPrefix("France   ███"))
    #expect(lines[1].hasSuffix(" 25.0%"))
    let withUnit = renderer.action(.piechart(slices: [PieSlice(label: "a", value: 3)], unit: "kg"))
    #expect(withUnit.hasSuffix("100.0%  (3 kg)"))
    #expect(renderer.action(.piechart(slices: [], unit: nil)) == "[empty chart]")
  }

  @Test func imageShowIsALink() {
    #expect(
      renderer.action(.imageShow(url: "https://i.example/cat.png"))
        == "Image: https://i.example/cat.png")
  }

  @Test func unknownActionsAreANoticeWithTheirType() {
    #expect(
      renderer.action(.unknown(type: "emotion", raw: ["type": "emotion"]))
        == "[unsupported action: emotion]")
  }

  @Test func answerRendersEveryActionInOrder() {
    let text = renderer.answer([
      .answer(expression: "Here:", language: nil, mood: nil),
      .anchor(link: "https://a.example", text: "A"),
      .control(.stop),
    ])
    #expect(text == "Here:\nA <https://a.example>\n[stop]")
  }

  @Test func noEscapeSequencesWithoutColours() {
    let everything: [AnswerAction] = [
      .answer(expression: "x", language: nil, mood: nil), .websearch(query: "q", count: nil),
      .anchor(link: "https://a.example", text: "a"), .map(latitude: 1, longitude: 2, zoom: 3),
      .piechart(slices: [PieSlice(label: "a", value: 1)], unit: nil),
      .videoPlay(identifier: "id", identifierType: "youtube"), .imageShow(url: "https://i.example"),
      .control(.pause), .unknown(type: "io", raw: .null),
    ]
    #expect(!renderer.answer(everything).contains("\u{1B}"))
  }
}
