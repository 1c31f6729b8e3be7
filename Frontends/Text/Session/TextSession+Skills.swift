import SusiCore
import SusiStore
import SusiTerminal

// Skill groups, skills, a skill's page and ratings.

extension TextSession {
  func groups() async -> Outcome {
    guard let result = await request(.loadGroups(Action.LoadGroups())) else { return .failed }
    if let failed = failure(result, doing: "loading the skill groups") { return failed }
    guard case .groupsLoaded = result.action else {
      return unexpected(result, doing: "loading the skill groups")
    }
    let groups = await store.state.groups
    console.print(groups.isEmpty ? "The server has no skill groups." : renderer.groupList(groups))
    return .ok
  }

  /// Lists one group's skills, or every skill (one request, with a progress line) without a group.
  func skills(group name: String?) async -> Outcome {
    guard let name else {
      guard let loaded = await loadAllSkills() else { return .failed }
      console.print(loaded.isEmpty ? "The server has no skills." : renderer.skillList(loaded))
      return .ok
    }
    guard let group = await resolveGroup(name) else { return .failed }
    guard let result = await request(.loadSkills(Action.LoadSkills(group: group))) else {
      return .failed
    }
    if let failed = failure(result, doing: "loading the skills of \(group)") { return failed }
    guard case .skillsLoaded(let loaded) = result.action else {
      return unexpected(result, doing: "loading the skills of \(group)")
    }
    console.print(
      loaded.skills.isEmpty ? "No skills in \(group)." : renderer.skillList(loaded.skills))
    return .ok
  }

  /// Every skill, in one request; nil when that failed (printed).
  func loadAllSkills() async -> [Skill]? {
    let label = "Loading all skills\(renderer.glyphs.ellipsis)"
    guard
      let result = await request(
        .loadSkills(Action.LoadSkills()), progress: label, immediately: true)
    else {
      return nil
    }
    if failure(result, doing: "loading all skills") != nil { return nil }
    guard case .skillsLoaded(let loaded) = result.action else {
      _ = unexpected(result, doing: "loading all skills")
      return nil
    }
    loadedAllSkills = true
    return loaded.skills
  }

  /// The group a person means (ignoring case); the groups are loaded first when unknown. Nil
  /// when there is no such group (printed).
  func resolveGroup(_ name: String) async -> String? {
    if await store.state.groups.isEmpty {
      guard let result = await request(.loadGroups(Action.LoadGroups())) else { return nil }
      if failure(result, doing: "loading the skill groups") != nil { return nil }
    }
    let groups = await store.state.groups
    if groups.contains(name) { return name }
    if let match = groups.first(where: { $0.lowercased() == name.lowercased() }) { return match }
    let near = groups.filter { $0.lowercased().contains(name.lowercased()) }
    if near.count == 1 { return near[0] }
    var message = "no skill group named '\(name.singleLine)'"
    if !near.isEmpty {
      message += "; did you mean one of: \(near.joined(separator: ", "))?"
    } else {
      message += "; \(command("/groups", "susi groups")) lists them"
    }
    console.error(message)
    return nil
  }

  /// The skill a person means by `name`: looked up in what is known, then once more after
  /// loading every skill. Nil when there is none or several (printed, with the candidates).
  func resolveSkill(_ name: String) async -> Skill? {
    var resolution = SkillResolver.resolve(name, in: await store.state.skills)
    if case .notFound = resolution, !loadedAllSkills {
      guard await loadAllSkills() != nil else { return nil }
      resolution = SkillResolver.resolve(name, in: await store.state.skills)
    }
    switch resolution {
    case .found(let skill):
      return skill
    case .ambiguous(let skills):
      let names = skills.map { "\($0.group)/\($0.tag)" }
      console.error(
        "'\(name.singleLine)' names \(skills.count) skills: \(names.joined(separator: ", ")); "
          + "say which one, e.g. \"\(names[0])\"")
      return nil
    case .notFound(let closest):
      var message = "no skill named '\(name.singleLine)'"
      if !closest.isEmpty {
        message += "; did you mean \(closest.map { "'\($0)'" }.joined(separator: ", "))?"
      }
      console.error(message)
      return nil
    }
  }

  func skill(named name: String) async -> Outcome {
    guard let found = await resolveSkill(name) else { return .failed }
    let what = "loading the skill \(found.displayName)"
    guard
      let result = await request(.loadSkill(Action.LoadSkill(group: found.group, skill: found.tag)))
    else {
      return .failed
    }
    if let failed = failure(result, doing: what) { return failed }
    guard case .skillLoaded(let loaded) = result.action else {
      return unexpected(result, doing: what)
    }
    let state = await store.state
    let skill = state.skills[loaded.skill.group]?[loaded.skill.tag] ?? loaded.skill
    console.print(
      renderer.skill(skill, userStars: state.userRatings[skill.id]?.stars, inChat: mode == .chat))
    if let image = skill.imageURL ?? skill.image, Validation.webURL(image) {
      await showImage(image)
    }
    return .ok
  }

  func rate(_ name: String, stars: Int) async -> Outcome {
    guard let found = await resolveSkill(name) else { return .failed }
    let what = "rating \(found.displayName)"
    let action = Action.submitRating(
      Action.SubmitRating(group: found.group, skill: found.tag, stars: stars))
    guard let result = await request(action) else { return .failed }
    if let failed = failure(result, doing: what) { return failed }
    guard case .ratingSubmitted(let submitted) = result.action else {
      return unexpected(result, doing: what)
    }
    console.print(
      "You rated \(found.displayName.singleLine) \(renderer.userStars(submitted.stars)).")
    console.print("Now: " + renderer.ratingSummary(submitted.ratings))
    return .ok
  }

  func myRating(_ name: String) async -> Outcome {
    guard let found = await resolveSkill(name) else { return .failed }
    let what = "loading your rating of \(found.displayName)"
    let action = Action.loadUserRating(Action.LoadUserRating(group: found.group, skill: found.tag))
    guard let result = await request(action) else { return .failed }
    if let failed = failure(result, doing: what) { return failed }
    guard case .userRatingLoaded(let loaded) = result.action else {
      return unexpected(result, doing: what)
    }
    if let stars = loaded.stars {
      console.print("Your rating of \(found.displayName.singleLine): \(renderer.userStars(stars))")
    } else {
      console.print(
        "You have not rated \(found.displayName.singleLine) yet; "
          + command(
            "/rate \(found.displayName) STARS",
            "susi rate \(ShellQuote.quote(found.displayName)) STARS")
          + " does.")
    }
    return .ok
  }
}
