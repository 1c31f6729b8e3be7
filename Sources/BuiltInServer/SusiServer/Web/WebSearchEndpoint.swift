import Foundation
import SusiHTTPServer
import SusiJSON

/// `/duckduckgo/?q=…&format=json`: answers in the DuckDuckGo Instant Answer format from the
/// local corpus, so the client's web search works offline.
///
/// The entry whose longest keyword occurs in the query (as whole words) answers; `{{base}}` in
/// its texts becomes this server's own base URL, so results can link to the local pages. An
/// unknown query gets DuckDuckGo's empty answer: every field empty, `RelatedTopics: []`.
enum WebSearchEndpoint {
  /// Top-level members in the order DuckDuckGo writes them (alphabetical), with the empty
  /// value each takes when the corpus entry does not say.
  static let fields: [(String, JSON)] = [
    ("Abstract", ""), ("AbstractSource", ""), ("AbstractText", ""), ("AbstractURL", ""),
    ("Answer", ""), ("AnswerType", ""), ("Definition", ""), ("DefinitionSource", ""),
    ("DefinitionURL", ""), ("Entity", ""), ("Heading", ""), ("Image", ""), ("ImageHeight", ""),
    ("ImageIsLogo", ""), ("ImageWidth", ""), ("Infobox", ""), ("Redirect", ""),
    ("RelatedTopics", []), ("Results", []), ("Type", ""),
  ]

  static func handle(_ request: EndpointRequest) -> HTTPResponse {
    let query = request.parameters["q"] ?? ""
    let base = request.baseURL
    var reply = JSONObject()
    let entry = bestEntry(for: query, in: request.context.web.corpus)
    for (key, empty) in fields {
      reply[key] = entry?[key].map { substitute($0, base: base) } ?? empty
    }
    let value = JSON.object(reply)
    var body = request.parameters.bool("pretty") ? value.prettyText(indent: 1) : value.compactText
    if let callback = request.parameters.nonEmpty("callback") { body = "\(callback)(\(body));" }
    return ReplyWriter.bytes(Array(body.utf8), contentType: "application/x-javascript")
  }

  /// The entry with the longest keyword found in the query as whole words.
  static func bestEntry(for query: String, in corpus: [JSONObject]) -> JSONObject? {
    let words = " " + searchWords(query).joined(separator: " ") + " "
    var best: (length: Int, entry: JSONObject)?
    for entry in corpus {
      for keyword in entry["keywords"]?.array ?? [] {
        guard let keyword = keyword.string else { continue }
        let normalized = searchWords(keyword).joined(separator: " ")
        guard !normalized.isEmpty, words.contains(" \(normalized) ") else { continue }
        if normalized.count > (best?.length ?? 0) { best = (normalized.count, entry) }
      }
    }
    return best?.entry
  }

  /// The words of a text in lower case, without the punctuation around them.
  static func searchWords(_ text: String) -> [String] {
    let punctuation = Set(" ?!.,;:\"()[]{}".unicodeScalars)
    return text.split(whereSeparator: \.isWhitespace).compactMap { raw in
      let scalars = raw.lowercased().unicodeScalars
      guard let first = scalars.firstIndex(where: { !punctuation.contains($0) }),
        let last = scalars.lastIndex(where: { !punctuation.contains($0) })
      else { return nil }
      var out = String.UnicodeScalarView()
      out.append(contentsOf: scalars[first...last])
      return String(out)
    }
  }

  static func substitute(_ value: JSON, base: String) -> JSON {
    switch value {
    case .string(let text): .string(text.replacingOccurrences(of: "{{base}}", with: base))
    case .array(let items): .array(items.map { substitute($0, base: base) })
    case .object(let object):
      .object(JSONObject(object.members.map { ($0.key, substitute($0.value, base: base)) }))
    default: value
    }
  }
}
