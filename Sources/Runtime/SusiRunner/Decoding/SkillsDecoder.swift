import SusiCore
import SusiHTTPTypes
import SusiJSON

/// Reads `getGroups`, `getSkillList` and `getSkillMetadata`, and builds skill image URLs.
enum SkillsDecoder {
  static func groups(_ object: JSONObject, place: String) throws(RunnerFailure) -> [String] {
    try ReplyReader.requireAccepted(object, place: place)
    guard let groups = object.array("groups") else {
      throw RunnerFailure(.badResponse, "the group list from \(place) holds no groups")
    }
    return groups.compactMap { $0.string }.filter { !$0.trimmingSpaces().isEmpty }
  }

  /// Every skill of a `getSkillList` reply. `skills` is keyed by skill tag; each skill's group
  /// and language come from its own metadata, falling back to the request's.
  static func skillList(
    _ object: JSONObject, requestedGroup: String?, language: String, server: String,
    place: String
  ) throws(RunnerFailure) -> [Skill] {
    try ReplyReader.requireAccepted(object, place: place)
    guard let skills = object.object("skills") else {
      if object["skills"] == nil || object["skills"] == .null { return [] }
      throw RunnerFailure(.badResponse, "the skill list from \(place) has no skills object")
    }
    let fallbackGroup =
      requestedGroup ?? object.nonEmptyText("group").flatMap { $0 == "All" ? nil : $0 }
    let fallbackLanguage = object.nonEmptyText("language").flatMap { $0.contains(",") ? nil : $0 }
    var out: [Skill] = []
    out.reserveCapacity(skills.count)
    for member in skills {
      guard let metadata = member.value.object else { continue }
      out.append(
        skill(
          metadata, tag: member.key, fallbackGroup: fallbackGroup,
          fallbackLanguage: fallbackLanguage ?? language, server: server))
    }
    return out
  }

  /// The skill of a `getSkillMetadata` reply (`skill_metadata`). An unknown skill comes back
  /// as default metadata full of nulls; that is still a skill, named by the request.
  static func skillMetadata(
    _ object: JSONObject, group: String, tag: String, language: String, server: String,
    place: String
  ) throws(RunnerFailure) -> Skill {
    try ReplyReader.requireAccepted(object, place: place)
    guard let metadata = object.object("skill_metadata") else {
      throw RunnerFailure(.badResponse, "the skill reply from \(place) has no skill_metadata")
    }
    var result = skill(
      metadata, tag: tag, fallbackGroup: group, fallbackLanguage: language, server: server)
    // The request names the skill as this client knows it; keep that identity.
    result.tag = tag
    result.group = group
    return result
  }

  /// One skill metadata object.
  static func skill(
    _ m: JSONObject, tag: String, fallbackGroup: String?, fallbackLanguage: String, server: String
  ) -> Skill {
    let group = m.nonEmptyText("group") ?? fallbackGroup ?? "All"
    let language = m.nonEmptyText("language") ?? fallbackLanguage
    let model = m.nonEmptyText("model") ?? "general"
    let image = m.nonEmptyText("image")
    let languages = m.array("supported_languages")?.compactMap {
      $0.object?.nonEmptyText("language")
    }
    return Skill(
      tag: tag.isEmpty ? (m.nonEmptyText("skill_tag") ?? tag) : tag,
      group: group, language: language, model: model,
      name: m.nonEmptyText("skill_name"),
      description: m.nonEmptyText("descriptions") ?? m.nonEmptyText("description"),
      author: m.nonEmptyText("author"), authorURL: m.nonEmptyText("author_url"),
      authorEmail: m.nonEmptyText("author_email"), image: image,
      imageURL: image.map {
        imageURL(server: server, model: model, group: group, language: language, image: $0)
      },
      examples: m.strings("examples"),
      dynamicContent: m.bool("dynamic_content") ?? false,
      termsOfUse: m.nonEmptyText("terms_of_use"),
      developerPrivacyPolicy: m.nonEmptyText("developer_privacy_policy"),
      rating: m.object("skill_rating").map(RatingsDecoder.skillRating),
      usageCount: m.int("usage_count"),
      lastModified: m.nonEmptyText("lastModifiedTime"), created: m.nonEmptyText("creationTime"),
      languages: languages)
  }

  /// The absolute URL of a skill image on `server`: the server's image proxy
  /// (`/cms/getImage.png?model=…&language=…&group=…&image=…`), every part percent-encoded.
  /// An image that is already an absolute URL is kept.
  static func imageURL(
    server: String, model: String, group: String, language: String, image: String
  )
    -> String
  {
    let lower = image.lowercased()
    if lower.hasPrefix("http://") || lower.hasPrefix("https://") { return image }
    let query = URLEncodedForm.encode([
      ("model", model), ("language", language), ("group", group), ("image", image),
    ])
    return server + "/cms/getImage.png?" + query
  }
}
