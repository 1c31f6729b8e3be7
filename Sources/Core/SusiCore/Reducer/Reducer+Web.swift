// Web search, link previews and the image cache.

extension State {
  /// The longest web search we send; it travels in the URL of a GET.
  static let maximumSearchLength = 500

  mutating func search(_ p: Action.Search, _ event: Event) -> Reaction {
    let query = p.query.trimmed
    guard !query.isEmpty else { return .rejected("the search query is empty") }
    guard query.count <= Self.maximumSearchLength else {
      return .rejected(
        "the search query is longer than \(Self.maximumSearchLength) characters")
    }
    return start(.search, event, about: query, .webSearch(query: query))
  }

  mutating func websearchLoaded(_ p: Action.WebsearchLoaded, _ event: Event) -> Reaction {
    finish(event, completing: .search)
    searches[p.query] = p.results
    return []
  }

  mutating func loadLinkPreview(_ p: Action.LoadLinkPreview, _ event: Event) -> Reaction {
    guard Validation.webURL(p.url) else {
      return .rejected("'\(p.url)' is not an http(s) URL")
    }
    return start(
      .loadLinkPreview, event, about: p.url, .fetchLinkPreview(url: p.url))
  }

  mutating func linkPreviewLoaded(_ p: Action.LinkPreviewLoaded, _ event: Event) -> Reaction {
    finish(event, completing: .loadLinkPreview)
    linkPreviews[p.url] = LinkPreview(
      url: p.url, title: p.title, description: p.description, image: p.image)
    return []
  }

  mutating func cacheImage(_ p: Action.CacheImage, _ event: Event) -> Reaction {
    guard Validation.webURL(p.url) else {
      return .rejected("'\(p.url)' is not an http(s) URL")
    }
    return start(.cacheImage, event, .cacheImage(url: p.url))
  }

  mutating func imageCached(_ p: Action.ImageCached, _ event: Event) -> Reaction {
    finish(event, completing: .cacheImage)
    images[p.url] = CachedImage(path: p.path, bytes: p.bytes)
    return []
  }
}
