import SusiCore
import SusiJSON

/// Reads ratings: the `skill_rating` object of skill metadata, the aggregate
/// `fiveStarRateSkill` replies with, and `getRatingByUser`.
enum RatingsDecoder {
  /// A `skill_rating` object: `positive`/`negative` (strings on the real server), optional
  /// `feedback_count`/`bookmark_count`, and the `stars` aggregate.
  static func skillRating(_ object: JSONObject) -> RatingAggregate {
    var aggregate = stars(object.object("stars") ?? [:])
    aggregate.positive = object.int("positive")
    aggregate.negative = object.int("negative")
    aggregate.feedbackCount = object.int("feedback_count")
    aggregate.bookmarkCount = object.int("bookmark_count")
    return aggregate
  }

  /// A `stars` object: five bucket counts, `avg_star` (int or float) and `total_star`. Counts
  /// below 0 count as 0 and a sum past `Int.max` stays there; an average outside 0…5 (or not
  /// finite) is brought into it, so no server's numbers trap or break a star row.
  static func stars(_ object: JSONObject) -> RatingAggregate {
    func count(_ key: String) -> Int { max(0, object.int(key) ?? 0) }
    let one = count("one_star")
    let two = count("two_star")
    let three = count("three_star")
    let four = count("four_star")
    let five = count("five_star")
    let sum = [two, three, four, five].reduce(one) { total, next in
      let (added, overflow) = total.addingReportingOverflow(next)
      return overflow ? Int.max : added
    }
    let total = object.int("total_star").map { max(0, $0) } ?? sum
    let average = object.double("avg_star").map { $0.isFinite ? min(5, max(0, $0)) : 0 } ?? 0
    return RatingAggregate(
      oneStar: one, twoStar: two, threeStar: three, fourStar: four, fiveStar: five,
      average: average, total: total)
  }

  /// The skill's aggregate after a `fiveStarRateSkill` call (the reply's `ratings`).
  static func submitted(_ object: JSONObject, place: String) throws(RunnerFailure)
    -> RatingAggregate
  {
    try ReplyReader.requireAccepted(object, place: place)
    guard let ratings = object.object("ratings") else {
      throw RunnerFailure(.badResponse, "the rating reply from \(place) holds no ratings")
    }
    // Some servers nest the aggregate as the metadata does.
    if let nested = ratings.object("stars") {
      var aggregate = stars(nested)
      aggregate.positive = ratings.int("positive")
      aggregate.negative = ratings.int("negative")
      return aggregate
    }
    return stars(ratings)
  }

  /// The user's own stars from `getRatingByUser`: a number when rated; nil for both
  /// "Skill not yet rated by the user" and "Skill not rated by the user" (no `ratings`).
  static func userStars(_ object: JSONObject, place: String) throws(RunnerFailure) -> Int? {
    try ReplyReader.requireAccepted(object, place: place)
    guard let ratings = object.object("ratings") else { return nil }
    guard let stars = ratings.int("stars") else {
      if ratings["stars"] == nil || ratings["stars"] == .null { return nil }
      throw RunnerFailure(.badResponse, "the user rating from \(place) has unreadable stars")
    }
    return (1...5).contains(stars) ? stars : nil
  }
}
