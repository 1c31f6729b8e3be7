import Foundation
import SusiJSON

/// Which skill a rating is for.
struct SkillKey: Sendable, Hashable {
  var model: String
  var group: String
  var language: String
  var skill: String
}

/// One user's star rating of one skill.
struct UserRating: Sendable, Equatable {
  var stars: Int
  var date: Date
}

/// The aggregate `stars` object of a skill, as the real server reports it.
struct StarCounts: Sendable, Equatable {
  var buckets = [0, 0, 0, 0, 0]

  var total: Int { buckets.reduce(0, +) }

  /// The mean rounded to two decimals; NaN when nobody has rated (the real server then fails).
  var average: Double {
    let sum = buckets.enumerated().reduce(0) { $0 + ($1.offset + 1) * $1.element }
    let mean = Double(sum) / Double(total)
    return (mean * 100).rounded() / 100
  }

  /// `avg_star` as org.json writes it: an integer when whole.
  var averageJSON: JSON {
    let value = total == 0 ? 0 : average
    return value.rounded() == value ? .int(Int(value)) : .double(value)
  }

  var json: JSON {
    .object([
      "one_star": .int(buckets[0]), "two_star": .int(buckets[1]), "three_star": .int(buckets[2]),
      "four_star": .int(buckets[3]), "five_star": .int(buckets[4]), "avg_star": averageJSON,
      "total_star": .int(total),
    ])
  }
}

/// Every user's rating of every skill: one rating per user per skill, a repeat replaces it.
struct RatingBook: Sendable {
  private(set) var ratings: [SkillKey: [String: UserRating]] = [:]

  func rating(_ key: SkillKey, user: String) -> UserRating? { ratings[key]?[user.lowercased()] }

  func hasRatings(_ key: SkillKey) -> Bool { !(ratings[key]?.isEmpty ?? true) }

  mutating func set(_ key: SkillKey, user: String, rating: UserRating) {
    ratings[key, default: [:]][user.lowercased()] = rating
  }

  mutating func removeAll(for user: String) {
    for key in ratings.keys { ratings[key]?[user.lowercased()] = nil }
  }

  /// The buckets of a skill; only ratings of 1…5 count.
  func stars(_ key: SkillKey) -> StarCounts {
    var counts = StarCounts()
    for rating in (ratings[key] ?? [:]).values where (1...5).contains(rating.stars) {
      counts.buckets[rating.stars - 1] += 1
    }
    return counts
  }

  /// `skill_rating` of the metadata object.
  func skillRating(_ key: SkillKey) -> JSON {
    .object([
      "negative": "0", "positive": "0", "feedback_count": 0, "bookmark_count": 0,
      "stars": stars(key).json,
    ])
  }
}
