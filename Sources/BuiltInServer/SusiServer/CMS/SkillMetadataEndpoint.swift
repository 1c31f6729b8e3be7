import SusiJSON

/// `/cms/getSkillMetadata.json`: one skill's metadata. All four parameters are required (a
/// missing one is an HTTP 200 `accepted:false`); an unknown skill gets the default object.
enum SkillMetadataEndpoint {
  static func handle(_ request: EndpointRequest) throws(APIError) -> JSONReply {
    let parameters = request.parameters
    guard let model = parameters["model"], let group = parameters["group"],
      let language = parameters["language"], let tag = parameters["skill"]
    else {
      return JSONReply(["accepted": false, "message": "Error: Bad parameter call"])
    }
    let library = request.context.library
    let metadata: JSONObject
    if let skill = library.skill(model: model, group: group, language: language, tag: tag) {
      metadata = request.context.readState {
        SkillMetadata.object(for: skill, library: library, state: $0)
      }
    } else {
      metadata = SkillMetadata.missing(model: model, group: group, language: language, tag: tag)
    }
    return JSONReply([
      "skill_metadata": .object(metadata), "accepted": true,
      "message": "Success: Fetched Skill's Metadata",
    ])
  }
}
