import SusiCore
import SusiJSON

/// Reads ratings: the `skill_rating` object of skill metadata, the aggregate
/// `fiveStarRateSkill` replies with, `getRatingByUser` and `getSkillRating`.
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

  /// A `stars` object: five bucket counts, `avg_star` (int or float) and `total_star`.
  static func stars(_ object: JSONObject) -> RatingAggregate {
    let one = object.int("one_star") ?? 0
    let two = object.int("two_star") ?? 0
    let three = object.int("three_star") ?? 0
    let four = object.int("four_star") ?? 0
    let five = object.int("five_star") ?? 0
    let total = object.int("total_star") ?? (one + two + three + four + five)
    return RatingAggregate(
      oneStar: one, twoStar: two, threeStar: three, fourStar: four, fiveStar: five,
      average: object.double("avg_star") ?? 0, total: total)
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

  /// The aggregate from `getSkillRating`. A never-rated skill comes back with
  /// `accepted: false` and an all-zero `skill_rating`, which is an answer, not a failure.
  static func skillRatingReply(_ object: JSONObject, place: String) throws(RunnerFailure)
    -> RatingAggregate
  {
    if let rating = object.object("skill_rating") { return skillRating(rating) }
    try ReplyReader.requireAccepted(object, place: place)
    throw RunnerFailure(.badResponse, "the rating reply from \(place) holds no skill_rating")
  }
}
