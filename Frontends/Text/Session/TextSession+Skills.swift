import SusiCommandLine
public import SusiCore
import SusiStore
import SusiTerminal

// Skill groups, skills, a skill's page and ratings.

extension TextSession {
  func groups() async throws(Outcome) {
    try await loadGroups()
    let groups = await store.state.groups
    console.print(groups.isEmpty ? "The server has no skill groups." : renderer.groupList(groups))
  }

  func loadGroups() async throws(Outcome) {
    _ = try await result(of: .loadGroups(Action.LoadGroups()), doing: "loading the skill groups") {
      if case .groupsLoaded = $0.action { () } else { nil }
    }
  }

  /// Lists one group's skills, or every skill (one request, with a progress line) without a group.
  func skills(group name: String?) async throws(Outcome) {
    guard let name else {
      let loaded = try await loadAllSkills()
      console.print(loaded.isEmpty ? "The server has no skills." : renderer.skillList(loaded))
      return
    }
    let group = try await resolveGroup(name)
    let loaded = try await result(
      of: .loadSkills(Action.LoadSkills(group: group)), doing: "loading the skills of \(group)"
    ) { if case .skillsLoaded(let loaded) = $0.action { loaded.skills } else { nil } }
    console.print(loaded.isEmpty ? "No skills in \(group)." : renderer.skillList(loaded))
  }

  /// Every skill, in one request.
  func loadAllSkills() async throws(Outcome) -> [Skill] {
    let skills = try await result(
      of: .loadSkills(Action.LoadSkills()), doing: "loading all skills",
      progress: "Loading all skills\(renderer.glyphs.ellipsis)", immediately: true
    ) { if case .skillsLoaded(let loaded) = $0.action { loaded.skills } else { nil } }
    loadedAllSkills = true
    return skills
  }

  /// The group a person means (ignoring case); the groups are loaded first when unknown.
  func resolveGroup(_ name: String) async throws(Outcome) -> String {
    if await store.state.groups.isEmpty { try await loadGroups() }
    let groups = await store.state.groups
    if groups.contains(name) { return name }
    if let match = groups.first(where: { $0.lowercased() == name.lowercased() }) { return match }
    let near = groups.filter { $0.lowercased().contains(name.lowercased()) }
    if near.count == 1 { return near[0] }
    let hint =
      near.isEmpty
      ? "\(command("/groups", "susi groups")) lists them"
      : "did you mean one of: \(near.joined(separator: ", "))?"
    console.error("no skill group named '\(name.singleLine)'; \(hint)")
    throw .failed
  }

  /// The skill a person means by `name`: looked up in what is known, then once more after
  /// loading every skill. Throws when there is none or several (printed, with the candidates).
  func resolveSkill(_ name: String) async throws(Outcome) -> Skill {
    var resolution = SkillResolver.resolve(name, in: await store.state.skills)
    if case .notFound = resolution, !loadedAllSkills {
      _ = try await loadAllSkills()
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
    case .notFound(let closest):
      let names = closest.map { "'\($0)'" }.joined(separator: ", ")
      console.error(
        "no skill named '\(name.singleLine)'\(names.isEmpty ? "" : "; did you mean \(names)?")")
    }
    throw .failed
  }

  func skill(named name: String) async throws(Outcome) {
    let found = try await resolveSkill(name)
    let loaded = try await result(
      of: .loadSkill(Action.LoadSkill(group: found.group, skill: found.tag)),
      doing: "loading the skill \(found.displayName)"
    ) { if case .skillLoaded(let loaded) = $0.action { loaded.skill } else { nil } }
    let state = await store.state
    let skill = state.skills[loaded.group]?[loaded.tag] ?? loaded
    console.print(
      renderer.skill(skill, userStars: state.userRatings[skill.id]?.stars, inChat: mode == .chat))
    if let image = skill.imageURL ?? skill.image, Validation.webURL(image) {
      await showImage(image)
    }
  }

  func rate(_ name: String, stars: Int) async throws(Outcome) {
    let found = try await resolveSkill(name)
    let submitted = try await result(
      of: .submitRating(Action.SubmitRating(group: found.group, skill: found.tag, stars: stars)),
      doing: "rating \(found.displayName)"
    ) { if case .ratingSubmitted(let submitted) = $0.action { submitted } else { nil } }
    console.print(
      "You rated \(found.displayName.singleLine) \(renderer.userStars(submitted.stars)).")
    console.print("Now: " + renderer.ratingSummary(submitted.ratings))
  }

  func myRating(_ name: String) async throws(Outcome) {
    let found = try await resolveSkill(name)
    let loaded = try await result(
      of: .loadUserRating(Action.LoadUserRating(group: found.group, skill: found.tag)),
      doing: "loading your rating of \(found.displayName)"
    ) { if case .userRatingLoaded(let loaded) = $0.action { loaded } else { nil } }
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
  }
}

extension TextCommands {
  /// The commands of this file, in the order `/help` lists them.
  static let skillCommands: [TextCommandRow] = [
    TextCommandRow(
      name: "groups", help: "list the skill groups",
      shell: Shell(examples: ["susi groups"]),
      data: [.groupsLoaded]
    ) { session, _ in try await session.groups() },
    TextCommandRow(
      name: "skills", usage: "[GROUP]", arguments: .text(needs: nil),
      help: "list the skills of a group, or all skills", completes: .groups,
      shell: Shell(
        summary: "list the skills of a group, or every skill",
        discussion:
          "The group name is matched ignoring case. Without a group, every skill is loaded in one request.",
        examples: [
          "susi skills", "susi skills Knowledge",
          "susi skills \"Games, Trivia and Accessories\"",
        ],
        arguments: 0...100),
      data: [.skillsLoaded]
    ) { try await $0.skills(group: $1.text) },
    TextCommandRow(
      name: "skill", usage: "NAME", arguments: .text(needs: "a skill NAME"),
      help: "show a skill: description, examples, ratings", completes: .skills,
      shell: Shell(
        discussion: """
          NAME is the skill's name or tag, ignoring case; GROUP/NAME picks one of several skills
          with the same name. Unknown names are looked up once more after loading every skill.
          """,
        examples: ["susi skill \"Flip a coin\"", "susi skill Knowledge/Capitals"],
        arguments: 1...100),
      data: [.skillLoaded], fetchesPages: true
    ) { try await $0.skill(named: $1.text ?? "") },
    TextCommandRow(
      name: "rate", usage: "NAME STARS", arguments: .rating,
      help: "rate a skill from 1 to 5 stars (logged in)", completes: .skills,
      shell: Shell(
        summary: "rate a skill from 1 to 5 stars (needs a login)",
        examples: ["susi rate \"Flip a coin\" 5"], arguments: 2...100),
      data: [.ratingSubmitted]
    ) { try await $0.rate($1.text ?? "", stars: $1.stars ?? 0) },
    TextCommandRow(
      name: "myrating", usage: "NAME", arguments: .text(needs: "a skill NAME"),
      help: "show your own rating of a skill (logged in)", completes: .skills,
      shell: Shell(
        summary: "show your own rating of a skill (needs a login)",
        examples: ["susi myrating \"Flip a coin\""], arguments: 1...100),
      data: [.userRatingLoaded]
    ) { try await $0.myRating($1.text ?? "") },
  ]
}

/// Finds the skill a person means by a name: its tag or display name, ignoring case, or
/// `GROUP/NAME` to pick one of several.
public enum SkillResolver {
  public enum Resolution: Equatable, Sendable {
    case found(Skill)
    /// Several skills carry the name; the person must pick one.
    case ambiguous([Skill])
    /// No skill carries it; the closest names, best first (possibly none).
    case notFound(closest: [String])
  }

  /// Resolves `name` against every skill in `skills` (by group, then tag).
  public static func resolve(_ name: String, in skills: [String: [String: Skill]]) -> Resolution {
    let all = skills.values.flatMap(\.values).sorted { $0.id < $1.id }
    let wanted = name.trimmed.lowercased()
    guard !wanted.isEmpty else { return .notFound(closest: []) }
    func isNamed(_ skill: Skill, _ name: String) -> Bool {
      skill.tag.lowercased() == name || skill.displayName.lowercased() == name
    }
    var matches = all.filter { isNamed($0, wanted) }
    if matches.isEmpty, let slash = wanted.lastIndex(of: "/") {
      let group = String(wanted[..<slash]).trimmed
      let skill = String(wanted[wanted.index(after: slash)...]).trimmed
      matches = all.filter { $0.group.lowercased() == group && isNamed($0, skill) }
    }
    switch matches.count {
    case 1: return .found(matches[0])
    case 0: return .notFound(closest: closest(to: wanted, in: all))
    default:
      // The same skill listed under two groups would be a duplicate, not a choice.
      return .ambiguous(matches)
    }
  }

  /// Up to three names near `wanted`: ones that contain it or that it contains, then ones
  /// within a small edit distance.
  static func closest(to wanted: String, in skills: [Skill]) -> [String] {
    var scored: [(name: String, score: Int)] = []
    var seen = Set<String>()
    for skill in skills {
      let name = skill.displayName
      guard seen.insert(name.lowercased()).inserted else { continue }
      let lower = name.lowercased()
      let distance = Spelling.editDistance(wanted, lower)
      if lower.contains(wanted) || wanted.contains(lower) {
        scored.append((name, min(distance, 1)))
      } else if distance <= max(2, wanted.count / 3) {
        scored.append((name, distance + 1))
      }
    }
    return scored.sorted { ($0.score, $0.name) < ($1.score, $1.name) }.prefix(3).map(\.name)
  }
}
