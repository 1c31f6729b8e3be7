import SusiCore
import SusiHTTPTypes

// Groups, skills, skill details, ratings and settings.

extension Endpoints {
  static let groups = Endpoint(
    path: "/cms/getGroups.json", method: .get, access: .anonymous, idempotent: true,
    why: "read-only")

  static let skillList = Endpoint(
    path: "/cms/getSkillList.json", method: .get, access: .anonymous, idempotent: true,
    why: "read-only")

  static let skillMetadata = Endpoint(
    path: "/cms/getSkillMetadata.json", method: .get, access: .anonymous, idempotent: true,
    why: "read-only")

  static let rateSkill = Endpoint(
    path: "/cms/fiveStarRateSkill.json", method: .post, access: .user, idempotent: true,
    why: "one rating per user and skill: a repeat replaces the user's stars with the same"
      + " value (old bucket -1, new bucket +1), so the aggregate ends up the same")

  static let userRating = Endpoint(
    path: "/cms/getRatingByUser.json", method: .get, access: .user, idempotent: true,
    why: "read-only")

  static let changeSettings = Endpoint(
    path: "/aaa/changeUserSettings.json", method: .post, access: .user, idempotent: true,
    why: "sets named keys to given values; setting them again to the same values is a no-op")

  static let listSettings = Endpoint(
    path: "/aaa/listUserSettings.json", method: .get, access: .user, idempotent: true,
    why: "read-only")
}

extension SusiRunner.Performer {
  /// The model every skill call names; the public server has only `general`.
  static let model = "general"

  /// The group names; they are the same in every language, so `language` is not sent.
  func fetchGroups(server: String, language: String) async throws(RunnerFailure) -> Action {
    let reply = try await call(
      APICall(Endpoints.groups, [("model", Self.model)]), base: try baseURL(server))
    return .groupsLoaded(
      Action.GroupsLoaded(groups: try SkillsDecoder.groups(reply, place: Endpoints.groups.path)))
  }

  /// One group's skills, or every skill with one `group=All` request.
  func fetchSkills(server: String, group: String?, language: String) async throws(RunnerFailure)
    -> Action
  {
    let base = try baseURL(server)
    let parameters = [("model", Self.model), ("group", group ?? "All"), ("language", language)]
    let reply = try await call(APICall(Endpoints.skillList, parameters), base: base)
    let skills = try SkillsDecoder.skillList(
      reply, requestedGroup: group, language: language, server: base,
      place: Endpoints.skillList.path)
    return .skillsLoaded(Action.SkillsLoaded(group: group, skills: skills))
  }

  func fetchSkill(server: String, group: String, skill: String, language: String)
    async throws(RunnerFailure)
    -> Action
  {
    let base = try baseURL(server)
    let parameters = [
      ("model", Self.model), ("group", group), ("language", language), ("skill", skill),
    ]
    let reply = try await call(APICall(Endpoints.skillMetadata, parameters), base: base)
    let loaded = try SkillsDecoder.skillMetadata(
      reply, group: group, tag: skill, language: language, server: base,
      place: Endpoints.skillMetadata.path)
    return .skillLoaded(Action.SkillLoaded(skill: loaded))
  }

  /// The skill as the server describes it. The server answers an unknown skill with default
  /// metadata (no name, author or description) rather than an error: that is `notFound`.
  func resolveSkill(server: String, group: String, skill: String, language: String)
    async throws(RunnerFailure) -> Skill
  {
    let base = try baseURL(server)
    let parameters = [
      ("model", Self.model), ("group", group), ("language", language), ("skill", skill),
    ]
    let reply = try await call(APICall(Endpoints.skillMetadata, parameters), base: base)
    let place = Endpoints.skillMetadata.path
    let resolved = try SkillsDecoder.skillMetadata(
      reply, group: group, tag: skill, language: language, server: base, place: place)
    let metadata = reply.object("skill_metadata")
    if ["skill_name", "author", "descriptions"].allSatisfy({ metadata?.nonEmptyText($0) == nil }) {
      throw RunnerFailure(
        .notFound,
        "unknown skill '\(skill)' in group '\(group)': the server has no such skill in language '\(language)'"
      )
    }
    return resolved
  }

  /// Looks the skill `effect` names up first (one metadata request), then performs `effect`;
  /// its result carries the skill as `resolved`.
  func resolvingSkill(_ effect: Effect) async throws(RunnerFailure) -> Action {
    guard let named = effect.namedSkill else { return try await effect.perform(with: self) }
    let resolved = try await resolveSkill(
      server: named.server, group: named.group, skill: named.skill, language: named.language)
    return try await effect.perform(with: self).carrying(resolved: resolved)
  }

  func rateSkill(server: String, group: String, skill: String, language: String, stars: Int)
    async throws(RunnerFailure) -> Action
  {
    let token = try userToken(server)
    let parameters = [
      ("model", Self.model), ("group", group), ("language", language), ("skill", skill),
      ("stars", String(stars)), ("access_token", token),
    ]
    let reply = try await call(APICall(Endpoints.rateSkill, parameters), base: try baseURL(server))
    let ratings = try RatingsDecoder.submitted(reply, place: Endpoints.rateSkill.path)
    return .ratingSubmitted(
      Action.RatingSubmitted(group: group, skill: skill, stars: stars, ratings: ratings))
  }

  func fetchUserRating(server: String, group: String, skill: String, language: String)
    async throws(RunnerFailure) -> Action
  {
    let token = try userToken(server)
    let parameters = [
      ("model", Self.model), ("group", group), ("language", language), ("skill", skill),
      ("access_token", token),
    ]
    let reply = try await call(APICall(Endpoints.userRating, parameters), base: try baseURL(server))
    let stars = try RatingsDecoder.userStars(reply, place: Endpoints.userRating.path)
    return .userRatingLoaded(Action.UserRatingLoaded(group: group, skill: skill, stars: stars))
  }

  /// Several settings in one call, each as its own parameter; only the server's 21 keys.
  func storeSettings(server: String, settings: [String: SettingValue]) async throws(RunnerFailure)
    -> Action
  {
    let parameters = SettingsDecoder.parameters(settings)
    guard !parameters.isEmpty else {
      throw RunnerFailure(
        .server,
        "none of these settings is one the server keeps: \(settings.keys.sorted().joined(separator: ", "))"
      )
    }
    let token = try userToken(server)
    let reply = try await call(
      APICall(Endpoints.changeSettings, parameters + [("access_token", token)]),
      base: try baseURL(server))
    try ReplyReader.requireAccepted(reply, place: Endpoints.changeSettings.path)
    let sent = Set(parameters.map(\.0))
    return .settingsChanged(
      Action.SettingsChanged(settings: settings.filter { sent.contains($0.key) }))
  }

  func fetchSettings(server: String) async throws(RunnerFailure) -> Action {
    let token = try userToken(server)
    let reply = try await call(
      APICall(Endpoints.listSettings, [("access_token", token)]), base: try baseURL(server))
    return .settingsSynced(
      Action.SettingsSynced(
        settings: try SettingsDecoder.settings(reply, place: Endpoints.listSettings.path)))
  }
}

extension Action {
  /// This result with the skill the runner looked up before the request, so the state learns
  /// the skill from the logged result (and replay the same way).
  func carrying(resolved skill: Skill) -> Action {
    switch self {
    case .ratingSubmitted(var p):
      p.resolved = skill
      return .ratingSubmitted(p)
    case .userRatingLoaded(var p):
      p.resolved = skill
      return .userRatingLoaded(p)
    default: return self
    }
  }
}

extension Effect {
  /// The skill a skill effect names, and where and in which language.
  var namedSkill: (server: String, group: String, skill: String, language: String)? {
    switch self {
    case .fetchSkill(let server, let group, let skill, let language),
      .rateSkill(let server, let group, let skill, let language, _),
      .fetchUserRating(let server, let group, let skill, let language):
      (server, group, skill, language)
    default: nil
    }
  }
}
