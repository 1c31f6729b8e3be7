import SusiCommandLine
public import SusiCore

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
