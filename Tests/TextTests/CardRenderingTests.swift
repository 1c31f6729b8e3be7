import SusiCore
import SusiTerminal
import Testing

@testable import SusiText

@Suite struct CardRenderingTests {
  let renderer = TextRenderer(width: 60, glyphs: .utf8)

  @Test func numbersCardsWithTitleDescriptionAndLink() {
    let text = renderer.cards([
      Card(title: "Swift", description: "A language", link: "https://swift.org"),
      Card(title: "Linux", description: "A kernel", link: "https://kernel.org"),
    ])
    #expect(
      text == """
        1. Swift
           A language
           https://swift.org
        2. Linux
           A kernel
           https://kernel.org
        """)
  }

  @Test func handlesMissingFields() {
    let text = renderer.cards([
      Card(title: nil, description: "Only a description", link: "https://a.example"),
      Card(title: "Only a title"),
      Card(link: "https://only.link"),
      Card(),
      Card(title: "  ", description: "", link: nil),
    ])
    #expect(
      text == """
        1. Only a description
           https://a.example
        2. Only a title
        3. https://only.link
        4. (no title)
        5. (no title)
        """)
  }

  @Test func alignsNumbersFromTenOn() {
    let text = renderer.cards((1...10).map { Card(title: "t\($0)") })
    let lines = text.split(separator: "\n")
    #expect(lines.first == " 1. t1")
    #expect(lines.last == "10. t10")
  }

  @Test func cutsLongDescriptionsToOneLine() {
    let text = renderer.cards([
      Card(
        title: "T", description: String(repeating: "long text ", count: 20),
        link: "https://x.example")
    ])
    let lines = text.split(separator: "\n").map(String.init)
    #expect(lines.count == 3)
    #expect(lines[1].displayWidth <= 60)
    #expect(lines[1].hasSuffix("…"))
  }

  @Test func linkPreviewShowsTitleDescriptionImageAndURL() {
    let text = renderer.linkPreview(
      LinkPreview(
        url: "https://example.org", title: "Example", description: "An example page",
        image: "https://example.org/i.png"))
    #expect(
      text == "Example\nAn example page\nImage: https://example.org/i.png\nhttps://example.org")
    #expect(
      renderer.linkPreview(LinkPreview(url: "https://x.example")) == "(no title)\nhttps://x.example"
    )
  }

  @Test func wrapsPreviewDescriptionsToTwoLines() {
    let text = renderer.linkPreview(
      LinkPreview(
        url: "https://x.example", title: "T", description: String(repeating: "word ", count: 60)))
    let lines = text.split(separator: "\n").map(String.init)
    #expect(lines.count == 4)
    #expect(lines[2].hasSuffix("…"))
    #expect(lines.allSatisfy { $0.displayWidth <= 60 })
  }
}
