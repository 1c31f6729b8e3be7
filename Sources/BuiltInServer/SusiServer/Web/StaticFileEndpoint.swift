import Foundation
import SusiHTTPServer
import SusiHTTPTypes

/// Static files: `/pages/<name>` (pages for link previews) and `/i/<name>` (the icons that
/// web-search results reference with relative URLs such as `/i/susi.png`).
enum StaticFileEndpoint {
  static func page(_ request: EndpointRequest, name: String) -> HTTPResponse {
    serve(WebContent.file(named: name, in: request.context.web.pagesDirectory), request)
  }

  static func icon(_ request: EndpointRequest, name: String) -> HTTPResponse {
    serve(WebContent.file(named: name, in: request.context.web.iconsDirectory), request)
  }

  private static func serve(_ url: URL?, _ request: EndpointRequest) -> HTTPResponse {
    guard let url, let bytes = try? AtomicFile.read(url, limit: 8 << 20) else {
      return ReplyWriter.errorPage(
        APIError(404, "Not Found"), path: request.http.path, accept: request.http.headers["Accept"])
    }
    var contentType = MediaType.forFile(url.lastPathComponent)
    if contentType == "text/html" {
      contentType += "; charset=\(declaredCharset(bytes) ?? "utf-8")"
    }
    return ReplyWriter.bytes(bytes, contentType: contentType)
  }

  /// The charset a page declares in its first kilobyte (`<meta charset="…">` or the
  /// `http-equiv` form), so the header agrees with the page.
  static func declaredCharset(_ bytes: [UInt8]) -> String? {
    let head = String(decoding: bytes.prefix(1024), as: UTF8.self).lowercased()
    guard let range = head.range(of: "charset=") else { return nil }
    let name = head[range.upperBound...].drop { $0 == "\"" || $0 == "'" }
      .prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
    return name.isEmpty ? nil : String(name)
  }
}
