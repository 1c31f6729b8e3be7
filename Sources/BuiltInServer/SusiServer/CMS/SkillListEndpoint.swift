import Foundation
import SusiJSON

/// `/cms/getSkillList.json`: every skill of a group (default `All`) keyed by skill tag, and with
/// `applyFilter=true` a sorted, filtered page of them in `filteredData`.
///
/// Quirks kept: a tag in two groups collides and the later wins; an unknown group is an empty
/// `skills` with `accepted:true`; `applyFilter` without `filter_type`/`filter_name` is a 500;
/// without `applyFilter`, `count`/`page` only add `pageCount` and trim nothing.
enum SkillListEndpoint {
  static func handle(_ request: EndpointRequest) throws(APIError) -> JSONReply {
    let parameters = request.parameters
    let model = parameters.string("model", "general")
    let group = parameters.string("group", "All")
    let languageParameter = parameters.string("language", "en")
    let languages = languageParameter.split(separator: ",").map { $0.trimmed }
    for name in ["reviewed", "staff_picks"] {
      if let value = parameters[name], value != "true", value != "false" {
        throw APIError(400, "Bad service call.")
      }
    }
    let count: Int? = try parameters["count"].map { _ throws(APIError) in
      try parameters.int("count", 0)
    }
    if let count, count < 0 { throw APIError(422, "Invalid count value. It should be positive.") }
    let page = try parameters.int("page", 0)
    let offset = try parameters.int("offset", 0)
    let minimumRating = try parameters.int("avg_rating", -1)
    _ = try parameters.int("duration", -1)

    let library = request.context.library
    let groups = group == "All" ? (library.groups(model: model) ?? []) : [group]
    var selected: [Skill] = []
    for group in groups {
      for language in languages {
        selected += library.skills.filter {
          $0.model == model && $0.group == group && $0.language == language
        }
      }
    }
    var skills = JSONObject()
    request.context.readState { state in
      for skill in selected {
        skills[skill.tag] = .object(
          SkillMetadata.object(for: skill, library: library, state: state))
      }
    }

    var reply = JSONObject()
    reply["accepted"] = true
    if parameters.bool("applyFilter") {
      guard let filterType = parameters["filter_type"], let filterName = parameters["filter_name"]
      else { throw APIError.nullPointer("filter_type or filter_name") }
      var list = skills.members.compactMap { $0.value.object }
      list = filter(list, parameters, minimumRating: minimumRating)
      list = sort(list, by: filterType, ascending: filterName == "ascending")
      if let count {
        reply["pageCount"] = .int(pageCount(list.count, count))
        let start = min(list.count, max(0, page) * count)
        list = Array(list[start..<min(list.count, start + count)])
      } else {
        list = Array(list.dropFirst(max(0, offset)))
      }
      reply["filteredData"] = .array(list.map(JSON.object))
    } else if let count {
      reply["pageCount"] = .int(pageCount(skills.count, count))
    }
    reply["model"] = .string(model)
    reply["group"] = .string(group)
    reply["language"] = .string(languageParameter)
    reply["skills"] = .object(skills)
    reply["message"] = "Success: Fetched skill list"
    return JSONReply(reply)
  }

  static func pageCount(_ total: Int, _ count: Int) -> Int {
    count == 0 ? 0 : (total + count - 1) / count
  }

  static func filter(
    _ list: [JSONObject], _ parameters: RequestParameters, minimumRating: Int
  ) -> [JSONObject] {
    var list = list
    if parameters["reviewed"] == "true" { list = list.filter { $0["reviewed"] == true } }
    if parameters["staff_picks"] == "true" { list = list.filter { $0["staffPick"] == true } }
    if let query = parameters.nonEmpty("q")?.lowercased() {
      let types = (parameters["search_type"] ?? "").split(separator: ",").map { $0.trimmed }
      let fields = types.isEmpty ? ["skill_name", "descriptions", "examples", "author"] : types
      list = list.filter { skill in
        fields.contains { field in searchText(skill, field).lowercased().contains(query) }
      }
    }
    if minimumRating != -1 {
      list = list.filter { averageStars($0) >= Double(minimumRating) }
    }
    return list
  }

  static func searchText(_ skill: JSONObject, _ field: String) -> String {
    switch field {
    case "skill_name": skill["skill_name"]?.string ?? ""
    case "descriptions": skill["descriptions"]?.string ?? ""
    case "author": skill["author"]?.string ?? ""
    case "examples": (skill["examples"]?.array ?? []).compactMap(\.string).joined(separator: "\n")
    default: ""
    }
  }

  static func averageStars(_ skill: JSONObject) -> Double {
    skill["skill_rating"]?["stars"]?["avg_star"]?.double ?? 0
  }

  /// Sorts stably by the real server's filter types; an unknown type leaves the order as is.
  static func sort(_ list: [JSONObject], by type: String, ascending: Bool) -> [JSONObject] {
    func stars(_ skill: JSONObject, _ key: String) -> Double {
      skill["skill_rating"]?["stars"]?[key]?.double ?? 0
    }
    let key: (JSONObject) -> [Double]?
    var textKey: ((JSONObject) -> String)?
    switch type {
    case "creation_date": textKey = { $0["creationTime"]?.string ?? "" }
    case "modified_date": textKey = { $0["lastModifiedTime"]?.string ?? "" }
    case "lexicographical":
      textKey = { ($0["skill_name"]?.string ?? $0["skill_tag"]?.string ?? "").lowercased() }
    default: break
    }
    switch type {
    case "rating": key = { [stars($0, "total_star"), stars($0, "avg_star")] }
    case "top_rated": key = { [stars($0, "avg_star")] }
    case "usage": key = { [$0["usage_count"]?.double ?? 0] }
    case "feedback": key = { [$0["skill_rating"]?["feedback_count"]?.double ?? 0] }
    default: key = { _ in nil }
    }
    let indexed = Array(list.enumerated())
    let sorted = indexed.sorted { a, b in
      if let textKey {
        let (x, y) = (textKey(a.element), textKey(b.element))
        if x != y { return ascending ? x < y : x > y }
      } else if let x = key(a.element), let y = key(b.element), x != y {
        return ascending ? x.lexicographicallyPrecedes(y) : y.lexicographicallyPrecedes(x)
      }
      return a.offset < b.offset
    }
    return sorted.map(\.element)
  }
}
