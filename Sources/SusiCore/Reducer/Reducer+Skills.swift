// Skill groups, skill lists, skill details and ratings.

extension State {
  /// The language to ask the server for skills in: the caller's, else the user's preferred
  /// language, else English (the server's default).
  func skillListLanguage(_ requested: String?) -> String {
    requested ?? preferredLanguage ?? "en"
  }

  /// The `prefLanguage` setting, when set.
  var preferredLanguage: String? {
    if case .string(let language)? = settings["prefLanguage"], !language.isEmpty { return language }
    return nil
  }

  /// A group name problem, when groups are known and this is not one of them.
  func groupProblem(_ group: String) -> String? {
    if group.trimmed.isEmpty { return "the group name is empty" }
    if !groups.isEmpty && !groups.contains(group) && skills[group] == nil {
      return "unknown group '\(group)'"
    }
    return nil
  }

  mutating func loadGroups(_ p: Action.LoadGroups, _ event: Event) -> [Effect] {
    let language = skillListLanguage(p.language)
    return start(
      "loadGroups", event, key: "loadGroups", .fetchGroups(server: server, language: language))
  }

  mutating func groupsLoaded(_ p: Action.GroupsLoaded, _ event: Event) -> [Effect] {
    finish(event, completing: "loadGroups")
    var seen = Set<String>()
    groups = p.groups.filter { seen.insert($0).inserted }
    return []
  }

  mutating func loadSkills(_ p: Action.LoadSkills, _ event: Event) -> [Effect] {
    if let group = p.group, let problem = groupProblem(group) { return [.reject(reason: problem)] }
    let language = skillListLanguage(p.language)
    return start(
      "loadSkills", event, key: "loadSkills:\(p.group ?? "*")",
      .fetchSkills(server: server, group: p.group, language: language))
  }

  mutating func skillsLoaded(_ p: Action.SkillsLoaded, _ event: Event) -> [Effect] {
    finish(event, completing: "loadSkills")
    if let group = p.group {
      skills[group] = Dictionary(p.skills.map { ($0.tag, $0) }, uniquingKeysWith: { $1 })
    } else {
      var byGroup: [String: [String: Skill]] = [:]
      for skill in p.skills { byGroup[skill.group, default: [:]][skill.tag] = skill }
      // Only `groupsLoaded` says which groups exist: a list of skills in one language may
      // cover only some of them.
      skills = byGroup
    }
    return []
  }

  mutating func loadSkill(_ p: Action.LoadSkill, _ event: Event) -> [Effect] {
    if let problem = groupProblem(p.group) { return [.reject(reason: problem)] }
    if p.skill.trimmed.isEmpty { return [.reject(reason: "the skill name is empty")] }
    let language = p.language ?? skills[p.group]?[p.skill]?.language ?? skillListLanguage(nil)
    return start(
      "loadSkill", event, key: "loadSkill:\(p.group)/\(p.skill)",
      .fetchSkill(server: server, group: p.group, skill: p.skill, language: language))
  }

  mutating func skillLoaded(_ p: Action.SkillLoaded, _ event: Event) -> [Effect] {
    finish(event, completing: "loadSkill")
    skills[p.skill.group, default: [:]][p.skill.tag] = p.skill
    return []
  }

  /// Why an intent naming this skill is refused when the skill is not loaded.
  static func unknownSkill(group: String, skill: String) -> [Effect] {
    [.reject(reason: "unknown skill '\(skill)' in group '\(group)'; load the group's skills first")]
  }

  mutating func submitRating(_ p: Action.SubmitRating, _ event: Event) -> [Effect] {
    guard (1...5).contains(p.stars) else {
      return [.reject(reason: "stars must be 1 to 5, not \(p.stars)")]
    }
    guard let skill = skills[p.group]?[p.skill] else {
      return Self.unknownSkill(group: p.group, skill: p.skill)
    }
    if let refusal = loginProblem(event, doing: "rate skills") { return refusal }
    return start(
      "submitRating", event,
      .rateSkill(
        server: server, group: p.group, skill: p.skill, language: p.language ?? skill.language,
        stars: p.stars))
  }

  mutating func ratingSubmitted(_ p: Action.RatingSubmitted, _ event: Event) -> [Effect] {
    finish(event, completing: "submitRating")
    // The reply carries only the star counts; thumbs and feedback counts stay as they were.
    let before = skills[p.group]?[p.skill]?.rating
    var ratings = p.ratings
    ratings.positive = ratings.positive ?? before?.positive
    ratings.negative = ratings.negative ?? before?.negative
    ratings.feedbackCount = ratings.feedbackCount ?? before?.feedbackCount
    ratings.bookmarkCount = ratings.bookmarkCount ?? before?.bookmarkCount
    skills[p.group]?[p.skill]?.rating = ratings
    userRatings[SkillID(group: p.group, skill: p.skill)] = UserRating(stars: p.stars)
    return []
  }

  mutating func loadUserRating(_ p: Action.LoadUserRating, _ event: Event) -> [Effect] {
    guard let skill = skills[p.group]?[p.skill] else {
      return Self.unknownSkill(group: p.group, skill: p.skill)
    }
    if let refusal = loginProblem(event, doing: "read your ratings") { return refusal }
    return start(
      "loadUserRating", event, key: "loadUserRating:\(p.group)/\(p.skill)",
      .fetchUserRating(
        server: server, group: p.group, skill: p.skill, language: p.language ?? skill.language))
  }

  mutating func userRatingLoaded(_ p: Action.UserRatingLoaded, _ event: Event) -> [Effect] {
    finish(event, completing: "loadUserRating")
    userRatings[SkillID(group: p.group, skill: p.skill)] = UserRating(stars: p.stars)
    return []
  }
}
