import Foundation
import SusiJSON

/// Builds the skill metadata object of `getSkillList`/`getSkillMetadata`, member by member in
/// the real server's order: nulls for missing headers, `descriptions` as one string, ratings
/// with string `positive`/`negative`, dates in the real formats.
enum SkillMetadata {
  static let epoch = "1970-01-01T00:00:00Z"

  static func object(for skill: Skill, library: SkillLibrary, state: ServerState) -> JSONObject {
    let file = skill.file
    func header(_ key: String) -> JSON { file.header(key).map(JSON.string) ?? .null }
    func yes(_ key: String) -> Bool { file.header(key)?.lowercased() == "yes" }
    let key = SkillKey(
      model: skill.model, group: skill.group, language: skill.language, skill: skill.tag)
    let examples = file.examples
    var object = JSONObject()
    object["model"] = .string(skill.model)
    object["group"] = .string(skill.group)
    object["language"] = .string(skill.language)
    object["developer_privacy_policy"] = header("developer_privacy_policy")
    object["descriptions"] = header("description")
    object["image"] = header("image")
    object["author"] = header("author")
    object["author_url"] = header("author_url")
    object["author_email"] = header("author_email")
    object["skill_name"] = header("name")
    object["protected"] = .bool(yes("protected"))
    object["reviewed"] = false
    object["editable"] = true
    object["staffPick"] = false
    object["systemSkill"] = false
    object["terms_of_use"] = header("terms_of_use")
    object["dynamic_content"] = .bool(yes("dynamic_content"))
    object["examples"] = examples.isEmpty ? .null : .array(examples.map(JSON.string))
    object["skill_rating"] = state.ratings.skillRating(key)
    object["usage_count"] = .int(state.usage[skill.serverPath] ?? 0)
    object["skill_tag"] = .string(skill.tag)
    object["lastModifiedTime"] = .string(SusiDateFormat.seconds(skill.modified))
    object["creationTime"] = .string(SusiDateFormat.seconds(skill.modified))
    object["supported_languages"] = .array(
      library.languages(model: skill.model, group: skill.group, tag: skill.tag).map {
        .object(["language": .string($0), "name": .string(skill.tag)])
      })
    if let accessed = skill.accessed {
      object["lastAccessTime"] = .string(SusiDateFormat.fileTime(accessed))
    }
    return object
  }

  /// What the real server answers for a skill it does not have: the defaults, no
  /// `supported_languages`, no `lastAccessTime`.
  static func missing(model: String, group: String, language: String, tag: String) -> JSONObject {
    var object = JSONObject()
    object["model"] = .string(model)
    object["group"] = .string(group)
    object["language"] = .string(language)
    for key in [
      "developer_privacy_policy", "descriptions", "image", "author", "author_url", "author_email",
      "skill_name",
    ] {
      object[key] = .null
    }
    object["protected"] = false
    object["reviewed"] = false
    object["editable"] = true
    object["staffPick"] = false
    object["systemSkill"] = false
    object["terms_of_use"] = .null
    object["dynamic_content"] = false
    object["examples"] = .null
    object["skill_rating"] = RatingBook().skillRating(
      SkillKey(model: model, group: group, language: language, skill: tag))
    object["usage_count"] = 0
    object["skill_tag"] = .string(tag)
    object["lastModifiedTime"] = .string(epoch)
    object["creationTime"] = .string(epoch)
    return object
  }
}
