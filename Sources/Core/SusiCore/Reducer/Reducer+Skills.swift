// Skill groups, skill lists, skill details and ratings.

extension State {
  /// The language to ask the server for skills in: the caller's, else the user's preferred
  /// language, else English (the server's default).
  func skillListLanguage(_ requested: String?) -> String {
    requested ?? preferredLanguage ?? "en"
  }

  /// The `prefLanguage` setting, when set.
  var preferredLanguage: String? {
    // Most states have no settings: spare hashing the name.
    guard !settings.isEmpty else { return nil }
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

  mutating func loadGroups(_ p: Action.LoadGroups, _ event: Event) -> Reaction {
    let language = skillListLanguage(p.language)
    return start(
      .loadGroups, event, .fetchGroups(server: server, language: language))
  }

  mutating func groupsLoaded(_ p: Action.GroupsLoaded, _ event: Event) -> Reaction {
    finish(event, completing: .loadGroups)
    var seen = Set<String>()
    groups = p.groups.filter { seen.insert($0).inserted }
    return []
  }

  mutating func loadSkills(_ p: Action.LoadSkills, _ event: Event) -> Reaction {
    if let group = p.group, let problem = groupProblem(group) { return .rejected(problem) }
    let language = skillListLanguage(p.language)
    return start(
      .loadSkills, event, about: p.group ?? "*",
      .fetchSkills(server: server, group: p.group, language: language))
  }

  mutating func skillsLoaded(_ p: Action.SkillsLoaded, _ event: Event) -> Reaction {
    finish(event, completing: .loadSkills)
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

  mutating func loadSkill(_ p: Action.LoadSkill, _ event: Event) -> Reaction {
    if let problem = skillNameProblem(group: p.group, skill: p.skill) {
      return .rejected(problem)
    }
    let language =
      p.language ?? knownLanguage(group: p.group, skill: p.skill) ?? skillListLanguage(nil)
    return start(
      .loadSkill, event, about: "\(p.group)/\(p.skill)",
      .fetchSkill(server: server, group: p.group, skill: p.skill, language: language))
  }

  // Taken, not borrowed: the skill the reducer was handed (itself a copy out of the action's box)
  // moves into the table instead of being copied once more (a retain and a release of each of
  // its strings).
  mutating func skillLoaded(_ p: consuming Action.SkillLoaded, _ event: Event) -> Reaction {
    finish(event, completing: .loadSkill)
    let skill = (consume p).skill
    skills[skill.group, default: [:]][skill.tag] = skill
    return []
  }

  /// Why an intent cannot name this skill, or nil when it can.
  func skillNameProblem(group: String, skill: String) -> String? {
    if let problem = groupProblem(group) { return problem }
    return skill.trimmed.isEmpty ? "the skill name is empty" : nil
  }

  /// The skill's language as known, else the caller's, else the preferred one; and `effect` for
  /// it, wrapped so the runner looks the skill up first when no loaded list has shown it.
  func aboutSkill(
    group: String, skill: String, language: String?, _ effect: (String) -> Effect
  ) -> Effect {
    guard let known = knownLanguage(group: group, skill: skill) else {
      return .resolvingSkill(effect(language ?? skillListLanguage(nil)))
    }
    return effect(language ?? known)
  }

  /// The language of the skill when a loaded list or page has shown it, else nil. Written as one
  /// chain of subscripts the optimizer copies the language alone out of the table; read through
  /// `Dictionary.Values` at an index, the whole skill was copied (a retain and a release of each
  /// of its strings).
  func knownLanguage(group: String, skill: String) -> String? {
    skills[group]?[skill]?.language
  }

  mutating func submitRating(_ p: Action.SubmitRating, _ event: Event) -> Reaction {
    guard (1...5).contains(p.stars) else {
      return .rejected("stars must be 1 to 5, not \(p.stars)")
    }
    if let problem = skillNameProblem(group: p.group, skill: p.skill) {
      return .rejected(problem)
    }
    if let refusal = loginProblem(event, for: .submitRating) { return refusal }
    let effect = aboutSkill(group: p.group, skill: p.skill, language: p.language) {
      .rateSkill(server: server, group: p.group, skill: p.skill, language: $0, stars: p.stars)
    }
    return start(.submitRating, event, effect)
  }

  mutating func ratingSubmitted(_ p: Action.RatingSubmitted, _ event: Event) -> Reaction {
    finish(event, completing: .submitRating)
    if let resolved = p.resolved { skills[p.group, default: [:]][p.skill] = resolved }
    // The skill is changed where it lies (one look-up of each name, no copy of the skill: read
    // out of its table, even for one field, the whole skill is copied).
    if let group = skills.index(forKey: p.group),
      let skill = skills.values[group].index(forKey: p.skill)
    {
      Self.update(&skills.values[group].values[skill].rating, to: p.ratings)
    }
    userRatings[SkillID(group: p.group, skill: p.skill)] = UserRating(stars: p.stars)
    return []
  }

  /// Sets `rating` to `reply`, which carries only the star counts: thumbs and feedback counts stay
  /// as they were.
  private static func update(_ rating: inout RatingAggregate?, to reply: RatingAggregate) {
    var ratings = reply
    ratings.positive = ratings.positive ?? rating?.positive
    ratings.negative = ratings.negative ?? rating?.negative
    ratings.feedbackCount = ratings.feedbackCount ?? rating?.feedbackCount
    ratings.bookmarkCount = ratings.bookmarkCount ?? rating?.bookmarkCount
    rating = ratings
  }

  mutating func loadUserRating(_ p: Action.LoadUserRating, _ event: Event) -> Reaction {
    if let problem = skillNameProblem(group: p.group, skill: p.skill) {
      return .rejected(problem)
    }
    if let refusal = loginProblem(event, for: .loadUserRating) { return refusal }
    let effect = aboutSkill(group: p.group, skill: p.skill, language: p.language) {
      .fetchUserRating(server: server, group: p.group, skill: p.skill, language: $0)
    }
    return start(
      .loadUserRating, event, about: "\(p.group)/\(p.skill)", effect)
  }

  mutating func userRatingLoaded(_ p: Action.UserRatingLoaded, _ event: Event) -> Reaction {
    finish(event, completing: .loadUserRating)
    if let resolved = p.resolved { skills[p.group, default: [:]][p.skill] = resolved }
    userRatings[SkillID(group: p.group, skill: p.skill)] = UserRating(stars: p.stars)
    return []
  }
}
