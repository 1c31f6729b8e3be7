public import SusiJSON

/// A `!console:` rule's definition, the JSON object between `!console:` and `eol`:
///
/// - `url`: fetched with the variables filled in (`$1$`, `$name$`), each value percent-encoded;
/// - `path`: where in the JSON reply the rows are (see `ConsolePath`); without it the reply
///   gives no rows, only the `response` headers;
/// - `request`: header fields to send (`{"Authorization": "…"}`);
/// - `response`: reply header fields to keep as variables (`{"Content-Type": "type"}`), in one
///   more row;
/// - `data`: rows of its own, used when there is no `url` or the `url` gives none;
/// - `actions`: actions to answer with besides the answer line (`table`, `rss`, `video_play` …).
///
/// A rule with only `actions` answers with them.
public struct ConsoleDefinition: Sendable, Equatable {
  public var url: String?
  public var path: String?
  public var requestHeaders: [(name: String, value: String)]
  public var responseHeaders: [(header: String, variable: String)]
  public var data: [JSONObject]?
  public var actions: [JSONObject]

  /// Reads `definition`; a member of the wrong type is an error naming it.
  public init(definition: JSONObject) throws(JSONShapeError) {
    let reader = FieldReader(definition)
    url = try reader.optionalString("url")
    path = try reader.optionalString("path")
    requestHeaders = try (reader.optionalObject("request")?.object ?? [:]).members.map {
      ($0.key, SkillBindings.text($0.value))
    }
    responseHeaders = try (reader.optionalObject("response")?.object ?? [:]).members.map {
      ($0.key, SkillBindings.text($0.value))
    }
    // As on the real server, `data` that is not an array is ignored and its rows are the
    // objects in it that are not empty.
    if case .array(let items)? = definition["data"] {
      data = items.compactMap { $0.object }.filter { !$0.isEmpty }
    }
    guard let list = definition["actions"], list != .null else {
      actions = []
      return
    }
    guard case .array(let items) = list else {
      throw JSONShapeError(path: "actions", reason: "expected an array, found \(list.kindName)")
    }
    actions = items.compactMap { $0.object }
  }

  public static func == (a: ConsoleDefinition, b: ConsoleDefinition) -> Bool {
    a.url == b.url && a.path == b.path && a.data == b.data && a.actions == b.actions
      && a.requestHeaders.map(\.name) == b.requestHeaders.map(\.name)
      && a.requestHeaders.map(\.value) == b.requestHeaders.map(\.value)
      && a.responseHeaders.map(\.header) == b.responseHeaders.map(\.header)
      && a.responseHeaders.map(\.variable) == b.responseHeaders.map(\.variable)
  }
}
