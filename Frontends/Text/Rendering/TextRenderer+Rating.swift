import SusiCommandLine
public import SusiCore
import SusiTerminal

extension TextRenderer {
  /// Whole stars for `value` (0…5, rounded half up) followed by the number to one decimal:
  /// `★★★★☆ 4.2`, or `****- 4.2` without Unicode. Stars alone would hide 4.2 vs 4.4.
  public func stars(_ value: Double) -> String {
    let clamped = value.isFinite ? min(max(value, 0), 5) : 0
    return drawn(Int(clamped.rounded(.toNearestOrAwayFromZero)))
      + " " + NumberText.fixed(clamped, decimals: 1)
  }

  /// A user's own rating: whole stars and the number (`★★★★☆ 4`).
  public func userStars(_ stars: Int) -> String { drawn(min(max(stars, 0), 5)) + " \(stars)" }

  /// `full` stars of five, in colour.
  private func drawn(_ full: Int) -> String {
    style.yellow(
      String(repeating: glyphs.fullStar, count: full)
        + String(repeating: glyphs.emptyStar, count: 5 - full))
  }

  /// `★★★★☆ 4.3 (3 ratings)`, or `not rated yet`.
  public func ratingSummary(_ rating: RatingAggregate?) -> String {
    guard let rating, let total = Self.ratingCount(rating) else { return "not rated yet" }
    return stars(Self.average(rating)) + " (\(NumberText.counted(total, "rating")))"
  }

  /// The distribution from five stars down to one as bars (the largest bucket fills the bar)
  /// with counts, then the average; `not rated yet` when nobody rated.
  public func ratingChart(_ rating: RatingAggregate?) -> String {
    guard let rating, let total = Self.ratingCount(rating) else { return "not rated yet" }
    let counts = rating.countsFiveToOne
    let largest = max(counts.max() ?? 0, 1)
    let countWidth = String(counts.max() ?? 0).count
    let barWidth = max(5, min(24, width - 8 - countWidth))
    var lines: [String] = []
    for (index, count) in counts.enumerated() {
      let bar = paddedBar(Double(count) / Double(largest), width: barWidth, colour: style.yellow)
      let label = "\(5 - index) \(glyphs.fullStar)"
      lines.append(
        "\(label) \(bar)  \(String(count).padded(toWidth: countWidth, alignRight: true))")
    }
    lines.append(
      "average \(NumberText.trimmed(Self.average(rating), maximumDecimals: 2)) from \(NumberText.counted(total, "rating"))"
    )
    return Self.join(lines)
  }

  /// How many ratings there are, or nil when none: the server's total, else the buckets' sum.
  static func ratingCount(_ rating: RatingAggregate) -> Int? {
    let total = max(rating.total, rating.countsFiveToOne.reduce(0, +))
    return total > 0 ? total : nil
  }

  /// The server's average, or one computed from the buckets when the server sent none.
  static func average(_ rating: RatingAggregate) -> Double {
    if rating.average > 0 && rating.average.isFinite { return rating.average }
    let counts = rating.countsFiveToOne
    let sum = counts.reduce(0, +)
    guard sum > 0 else { return 0 }
    let weighted = zip(counts, [5, 4, 3, 2, 1]).map { $0 * $1 }.reduce(0, +)
    return Double(weighted) / Double(sum)
  }
}
