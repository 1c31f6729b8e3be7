import SusiCore
import SusiHTTPClient
import SusiHTTPTypes

// Web search, link previews and image downloads: requests to hosts other than the SUSI server.

extension Endpoints {
  static let webSearch = Endpoint(
    path: "websearch", method: .get, access: .anonymous, idempotent: true,
    why: "a read-only query to the search service")

  static let linkPreview = Endpoint(
    path: "link preview", method: .get, access: .anonymous, idempotent: true,
    why: "a plain GET of a public page")

  static let image = Endpoint(
    path: "image", method: .get, access: .anonymous, idempotent: true,
    why: "a plain GET of an image")
}

extension SusiRunner.Performer {
  func webSearch(query: String) async throws(RunnerFailure) -> Action {
    let url = URLResolver.appendingQuery(
      URLEncodedForm.encode([("q", query), ("format", "json"), ("no_redirect", "1")]),
      to: websearchURL)
    let request = TransportRequest(
      url: url, headers: ["Accept": "application/json, */*;q=0.5", "User-Agent": limits.userAgent],
      idleTimeout: limits.idleTimeout, totalTimeout: limits.totalTimeout,
      maximumBodyBytes: limits.maximumBodyBytes)
    let place = "the web search at \(TransportRequest(url: websearchURL).displayURL)"
    let response = try await sender.send(
      request, idempotent: Endpoints.webSearch.idempotent, place: place)
    let reply = try ReplyReader.object(response, endpoint: Endpoints.webSearch, place: place)
    return .websearchLoaded(
      Action.WebsearchLoaded(
        query: query, results: WebSearchDecoder.results(reply, searchURL: websearchURL)))
  }

  /// Reads at most the body limit of the page (its head is what matters), within the preview
  /// timeout, following redirects.
  func fetchLinkPreview(url: String) async throws(RunnerFailure) -> Action {
    let request = TransportRequest(
      url: url,
      headers: [
        "Accept": "text/html, application/xhtml+xml;q=0.9, */*;q=0.5",
        "User-Agent": limits.userAgent,
      ],
      idleTimeout: min(limits.idleTimeout, timeouts.linkPreview),
      totalTimeout: timeouts.linkPreview,
      followsRedirects: true, maximumBodyBytes: limits.maximumBodyBytes, truncatesLongBodies: true,
      targetPolicy: targets)
    let place = request.displayURL
    let response = try await sender.send(
      request, idempotent: Endpoints.linkPreview.idempotent, place: place)
    guard (200...299).contains(response.status) else {
      throw ReplyReader.failure(status: response, endpoint: Endpoints.linkPreview, place: place)
    }
    if response.mediaType?.hasPrefix("image/") == true {
      return .linkPreviewLoaded(Action.LinkPreviewLoaded(url: url, image: url))
    }
    let preview = LinkPreviewDecoder.preview(
      response.body, headerCharset: response.charset, pageURL: response.finalURL ?? url)
    return .linkPreviewLoaded(
      Action.LinkPreviewLoaded(
        url: url, title: preview.title, description: preview.description, image: preview.image))
  }
}

extension SusiRunner.Performer {
  /// The image from the cache, downloaded first when it is not there.
  func cacheImage(url: String) async throws(RunnerFailure) -> Action {
    .imageCached(try await images.image(url).get())
  }
}

/// Downloads images for the image cache.
struct ImageFetcher: Sendable {
  let sender: RequestSender
  let limits: RequestLimits
  let timeout: Double
  let maximumBytes: Int
  /// Where images may come from.
  let targets: TargetPolicy

  /// The image's bytes; a reply that is not an image (an HTML page, say) is a `badResponse`.
  func fetch(_ url: String) async throws(RunnerFailure) -> [UInt8] {
    let request = TransportRequest(
      url: url, headers: ["Accept": "image/*, */*;q=0.5", "User-Agent": limits.userAgent],
      idleTimeout: min(limits.idleTimeout, timeout), totalTimeout: timeout, followsRedirects: true,
      maximumBodyBytes: maximumBytes, targetPolicy: targets)
    let place = request.displayURL
    let response = try await sender.send(
      request, idempotent: Endpoints.image.idempotent, place: place)
    guard (200...299).contains(response.status) else {
      throw ReplyReader.failure(status: response, endpoint: Endpoints.image, place: place)
    }
    guard
      response.mediaType?.hasPrefix("image/") == true || ImageSniffer.kind(response.body) != nil,
      !response.body.isEmpty
    else {
      throw RunnerFailure(
        .badResponse, "\(place) is not an image (\(response.mediaType ?? "no content type"))")
    }
    return response.body
  }
}
