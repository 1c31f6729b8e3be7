import Foundation
import SusiAccess
import SusiApplication
import SusiCommandLine
import SusiCore
import SusiFiles
import SusiHTTPServer
import SusiHTTPTypes
import SusiRunner
import SusiServe
import SusiStore

// GET /images?url=…: an image from susi's cache, so the page never fetches a third-party URL.

extension WebHandler {
  /// The cached copy of the image at `url`, as the state's `images` records it. Not cached yet
  /// (or its file is gone): `404 not_cached`, and the page asks for it with `cacheImage`.
  func image(_ request: HTTPRequest, _ caller: Caller) async throws(WebhookError)
    -> HTTPResponse
  {
    try caller.require(Privilege.stateRead)
    guard let url = request.queryValue("url"), !url.isEmpty else {
      throw .badRequest("invalid_query", "send the image's URL as ?url=")
    }
    let notCached = WebhookError(
      404, "not_cached", "the image is not in the cache yet; send cacheImage to fetch it")
    // Only a file the cache wrote, by name, inside the cache folder: the path in the log is
    // not trusted to point anywhere else.
    guard let cached = await app.store.state.images[url],
      let name = ImageCacheFile.name(of: cached.path),
      let file = ContainedFile.resolve(
        [name], under: URL(fileURLWithPath: app.options.imageDirectory))
    else { throw notCached }
    let tag = "\"\(name.split(separator: ".").first ?? "")\""
    var headers: HTTPHeaders = ["ETag": tag, "Cache-Control": "private, max-age=86400"]
    if let wanted = request.headers["If-None-Match"], Self.matches(wanted, tag) {
      return HTTPResponse(status: 304, headers: headers)
    }
    guard let data = FileManager.default.contents(atPath: file.path) else { throw notCached }
    let bytes = Array(data)
    // The media type the image's first bytes show, whatever its name says.
    let kind = ImageSniffer.kind(Array(bytes.prefix(512)))
    headers.set("Content-Type", kind?.mediaType ?? "application/octet-stream")
    return HTTPResponse(status: 200, headers: headers, body: bytes)
  }

  /// Whether an `If-None-Match` list names `tag` (or is `*`).
  static func matches(_ wanted: String, _ tag: String) -> Bool {
    wanted.split(separator: ",").contains { item in
      var candidate = item.trimmingCharacters(in: .whitespaces)
      if candidate.hasPrefix("W/") { candidate.removeFirst(2) }
      return candidate == "*" || candidate == tag
    }
  }
}
