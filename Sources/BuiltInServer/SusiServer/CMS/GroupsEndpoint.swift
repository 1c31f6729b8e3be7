import SusiJSON

/// `/cms/getGroups.json`: the group folders of a model (sorted here, so every run agrees).
/// An unknown model is a 500, as on the real server (a null directory listing).
enum GroupsEndpoint {
  static func handle(_ request: EndpointRequest) throws(APIError) -> JSONReply {
    let model = request.parameters.string("model", "general")
    guard let groups = request.context.library.groups(model: model) else {
      throw APIError.nullPointer("model folder '\(model)'")
    }
    return JSONReply([
      "accepted": true, "groups": .array(groups.map(JSON.string)),
      "message": "Success: Fetched group list",
    ])
  }
}
