import Foundation
import SusiHTTPServer
import SusiHTTPTypes

/// `/cms/getImage.png`: a skill image, looked up relative to the skill's language folder. Like
/// the real servlet it never answers 404: a missing image is replaced by the default image.
/// The content type follows the file's extension.
enum ImageEndpoint {
  static func handle(_ request: EndpointRequest) -> HTTPResponse {
    let parameters = request.parameters
    let library = request.context.library
    let found = parameters.nonEmpty("image").flatMap { image in
      library.imageFile(
        model: parameters.string("model", "general"), group: parameters.string("group", ""),
        language: parameters.string("language", "en"), image: image)
    }
    for url in [found, request.context.web.defaultImage].compactMap({ $0 }) {
      if let bytes = try? AtomicFile.read(url, limit: 8 << 20) {
        return ReplyWriter.bytes(bytes, contentType: MediaType.forFile(url.lastPathComponent))
      }
    }
    // Only a data directory without any default image gets here.
    return ReplyWriter.errorPage(
      APIError(404, "Not Found"), path: request.http.path, accept: request.http.headers["Accept"])
  }
}
