import SusiJSON

/// Names one skill: the group it is filed under and its tag (the skill file's name).
public struct SkillID: Hashable, Sendable, Comparable, CustomStringConvertible {
  public var group: String
  public var skill: String
  public init(group: String, skill: String) {
    self.group = group
    self.skill = skill
  }
  public static func < (a: SkillID, b: SkillID) -> Bool { (a.group, a.skill) < (b.group, b.skill) }
  public var description: String { "\(group)/\(skill)" }
}

/// A skill as the server describes it, plus the image URL resolved against the server.
public struct Skill: Equatable, Sendable {
  /// The skill tag: the file name without `.txt` (`"Flip a coin"`); the key for every call.
  public var tag: String
  public var group: String
  public var language: String
  public var model: String
  // Optional members are spelled `Optional<…>` to spare a copy of the whole value per one made
  // (see `Event`).
  /// The display name (`::name`), when the skill has one.
  public var name: Optional<String>
  public var description: Optional<String>
  public var author: Optional<String>
  public var authorURL: Optional<String>
  public var authorEmail: Optional<String>
  /// The image path as the server gives it, relative to the skill's language folder.
  public var image: Optional<String>
  /// The image's absolute URL on the server the skill came from.
  public var imageURL: Optional<String>
  public var examples: [String]
  public var dynamicContent: Bool
  public var termsOfUse: Optional<String>
  public var developerPrivacyPolicy: Optional<String>
  public var rating: Optional<RatingAggregate>
  public var usageCount: Optional<Int>
  public var lastModified: Optional<String>
  public var created: Optional<String>
  /// Languages the skill exists in, when the server says.
  public var languages: Optional<[String]>

  public init(
    tag: String, group: String, language: String = "en", model: String = "general",
    name: String? = nil, description: String? = nil, author: String? = nil,
    authorURL: String? = nil, authorEmail: String? = nil, image: String? = nil,
    imageURL: String? = nil, examples: [String] = [], dynamicContent: Bool = false,
    termsOfUse: String? = nil, developerPrivacyPolicy: String? = nil,
    rating: RatingAggregate? = nil, usageCount: Int? = nil, lastModified: String? = nil,
    created: String? = nil, languages: [String]? = nil
  ) {
    self.tag = tag
    self.group = group
    self.language = language
    self.model = model
    self.name = name
    self.description = description
    self.author = author
    self.authorURL = authorURL
    self.authorEmail = authorEmail
    self.image = image
    self.imageURL = imageURL
    self.examples = examples
    self.dynamicContent = dynamicContent
    self.termsOfUse = termsOfUse
    self.developerPrivacyPolicy = developerPrivacyPolicy
    self.rating = rating
    self.usageCount = usageCount
    self.lastModified = lastModified
    self.created = created
    self.languages = languages
  }

  public var id: SkillID { SkillID(group: group, skill: tag) }
  /// The name to show: `::name` when present, else the tag.
  public var displayName: String { name ?? tag }
}

/// A skill's five-star rating aggregate, as `fiveStarRateSkill` and the skill list report it.
public struct RatingAggregate: Equatable, Sendable {
  public var oneStar: Int
  public var twoStar: Int
  public var threeStar: Int
  public var fourStar: Int
  public var fiveStar: Int
  /// The server's average (rounded to 2 decimals); 0 when nobody rated.
  public var average: Double
  public var total: Int
  // Optional members are spelled `Optional<…>` to spare a copy of the whole value per one made
  // (see `Event`).
  /// Thumbs up and down, which the server sends as strings; nil when absent.
  public var positive: Optional<Int>
  public var negative: Optional<Int>
  public var feedbackCount: Optional<Int>
  public var bookmarkCount: Optional<Int>

  public init(
    oneStar: Int = 0, twoStar: Int = 0, threeStar: Int = 0, fourStar: Int = 0, fiveStar: Int = 0,
    average: Double = 0, total: Int = 0, positive: Int? = nil, negative: Int? = nil,
    feedbackCount: Int? = nil, bookmarkCount: Int? = nil
  ) {
    self.oneStar = oneStar
    self.twoStar = twoStar
    self.threeStar = threeStar
    self.fourStar = fourStar
    self.fiveStar = fiveStar
    self.average = average
    self.total = total
    self.positive = positive
    self.negative = negative
    self.feedbackCount = feedbackCount
    self.bookmarkCount = bookmarkCount
  }

  /// Counts from five stars down to one, the order a rating chart shows them.
  public var countsFiveToOne: [Int] { [fiveStar, fourStar, threeStar, twoStar, oneStar] }
}
