import SusiCore
import SusiHTTPClient
import SusiJSON

/// Reads DuckDuckGo Instant Answer replies into search results.
///
/// Uses the abstract (`Heading`, `AbstractText`, `AbstractURL`, `Image`) when there is one,
/// then `Results` and `RelatedTopics`. Each topic has `FirstURL`, `Text`, `Result` (HTML: the
/// anchor's text is the headline, the rest the description) and `Icon.URL` (often empty,
/// often relative). Category groups `{Name, Topics}` are flattened.
enum WebSearchDecoder {
  static func results(_ object: JSONObject, searchURL: String) -> [SearchResult] {
    var results: [SearchResult] = []
    var seen = Set<String>()
    func add(_ result: SearchResult?) {
      guard let result, seen.insert(result.link).inserted else { return }
      results.append(result)
    }
    if let link = object.nonEmptyText("AbstractURL"), let heading = object.nonEmptyText("Heading") {
      add(
        SearchResult(
          title: HTMLText.plainText(heading),
          description: object.nonEmptyText("AbstractText").map(HTMLText.plainText), link: link,
          icon: object.nonEmptyText("Image").flatMap { URLResolver.resolve($0, against: searchURL) }
        ))
    }
    for topic in flatten(object.array("Results") ?? [])
      + flatten(object.array("RelatedTopics") ?? [])
    {
      add(result(topic, searchURL: searchURL))
    }
    return results
  }

  /// Topics with category groups (`{"Name": …, "Topics": […]}`) replaced by their members.
  private static func flatten(_ topics: [JSON], depth: Int = 0) -> [JSONObject] {
    var out: [JSONObject] = []
    for topic in topics {
      guard let object = topic.object else { continue }
      if let nested = object.array("Topics") {
        if depth < 4 { out += flatten(nested, depth: depth + 1) }
      } else {
        out.append(object)
      }
    }
    return out
  }

  private static func result(_ topic: JSONObject, searchURL: String) -> SearchResult? {
    guard let link = topic.nonEmptyText("FirstURL") else { return nil }
    let text = topic.nonEmptyText("Text").map(HTMLText.plainText)
    var title = text
    var description: String?
    if let html = topic.nonEmptyText("Result") {
      let headline = HTMLText.firstElement("a", in: html).map { HTMLText.plainText(String($0)) }
      let plain = HTMLText.plainText(html)
      if let headline, !headline.isEmpty {
        title = headline
        var rest = Substring(plain)
        if rest.hasPrefix(headline) { rest = rest.dropFirst(headline.count) }
        let trimmed = rest.drop {
          $0 == " " || $0 == "-" || $0 == "\u{2013}" || $0 == "\u{2014}" || $0 == ":"
        }
        description = trimmed.isEmpty ? nil : String(trimmed)
      } else {
        description = plain.isEmpty ? nil : plain
      }
    }
    guard let title, !title.isEmpty else { return nil }
    if description == nil, let text, text != title { description = text }
    let icon = topic.object("Icon")?.nonEmptyText("URL").flatMap {
      URLResolver.resolve($0, against: searchURL)
    }
    return SearchResult(title: title, description: description, link: link, icon: icon)
  }
}
