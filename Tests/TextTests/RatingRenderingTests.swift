import SusiCore
import SusiTerminal
import Testing

@testable import SusiText

@Suite struct RatingRenderingTests {
  let renderer = TextRenderer(width: 80, glyphs: .utf8)
  let ascii = TextRenderer(width: 80, glyphs: .ascii)

  @Test func starsRoundToWholeStarsAndShowTheNumber() {
    #expect(renderer.stars(4.2) == "★★★★☆ 4.2")
    #expect(renderer.stars(4.5) == "★★★★★ 4.5")
    #expect(renderer.stars(0) == "☆☆☆☆☆ 0.0")
    #expect(ascii.stars(4.2) == "****- 4.2")
  }

  @Test func chartSaysNotRatedYetWithoutRatings() {
    #expect(renderer.ratingChart(nil) == "not rated yet")
    #expect(renderer.ratingChart(RatingAggregate()) == "not rated yet")
    #expect(renderer.ratingSummary(RatingAggregate()) == "not rated yet")
  }

  @Test func chartWithOneRatingFillsThatBar() {
    let chart = renderer.ratingChart(RatingAggregate(fourStar: 1, average: 4, total: 1))
    let lines = chart.split(separator: "\n").map(String.init)
    #expect(lines.count == 6)
    #expect(lines[0].hasPrefix("5 ★ "))
    #expect(lines[0].hasSuffix("  0"))
    #expect(lines[1].hasPrefix("4 ★ ████"))
    #expect(lines[1].hasSuffix("  1"))
    #expect(lines[5] == "average 4 from 1 rating")
    #expect(
      renderer.ratingSummary(RatingAggregate(fourStar: 1, average: 4, total: 1))
        == "★★★★☆ 4.0 (1 rating)")
  }

  @Test func chartWithManyRatingsScalesToTheLargestBucket() {
    let rating = RatingAggregate(oneStar: 1, threeStar: 2, fiveStar: 8, average: 4.27, total: 11)
    let chart = renderer.ratingChart(rating)
    let expected = """
      5 ★ ████████████████████████  8
      4 ★                           0
      3 ★ ██████                    2
      2 ★                           0
      1 ★ ███                       1
      average 4.27 from 11 ratings
      """
    #expect(chart == expected)
  }

  @Test func chartFallsBackToAsciiBars() {
    let chart = ascii.ratingChart(
      RatingAggregate(fourStar: 1, fiveStar: 2, average: 4.67, total: 3))
    #expect(chart.hasPrefix("5 * ########################  2\n4 * ############              1"))
    #expect(!chart.unicodeScalars.contains { $0.value > 0x7F })
  }

  @Test func averageIsComputedWhenTheServerSentNone() {
    #expect(
      renderer.ratingSummary(RatingAggregate(threeStar: 1, fiveStar: 1)) == "★★★★☆ 4.0 (2 ratings)")
  }
}
