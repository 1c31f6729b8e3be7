public import Foundation
import SusiFiles
import SusiHTTPServer
import SusiHTTPTypes

/// The page's files (HTML, JavaScript, CSS, images), served from a folder: the package's
/// resources unless told otherwise.
public struct WebPages: Sendable {
  /// The folder the files are in.
  public let folder: URL

  /// The pages installed with susi: beside the executable as SwiftPM builds them
  /// (`susi_SusiWeb.resources/Resources`), or in an install prefix (`PREFIX/share/susi/web`).
  public static func installed() -> WebPages? {
    candidates.first {
      FileManager.default.fileExists(atPath: $0.appendingPathComponent("index.html").path)
    }.map(WebPages.init)
  }

  /// Where `installed` looks, in order.
  public static var candidates: [URL] {
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    let folder = executable.deletingLastPathComponent()
    return [
      folder.appendingPathComponent("susi_SusiWeb.resources/Resources"),
      folder.deletingLastPathComponent().appendingPathComponent("share/susi/web"),
    ]
  }

  /// The answer for `relative` (`""` is `index.html`; a file name, or one folder and a name):
  /// the file with its content type, or nil when there is no such file inside the folder.
  func response(for relative: String) -> HTTPResponse? {
    let name = relative.isEmpty ? "index.html" : relative
    let segments = ContainedFile.segments(name)
    guard segments.count <= 2, let file = ContainedFile.resolve(segments, under: folder),
      let data = FileManager.default.contents(atPath: file.path)
    else { return nil }
    return HTTPResponse(
      status: 200, headers: ["Content-Type": Self.contentType(name)], body: Array(data))
  }

  /// The file's media type; text is UTF-8.
  static func contentType(_ name: String) -> String {
    let type = MediaType.forFile(name)
    return type.hasPrefix("text/") ? type + "; charset=utf-8" : type
  }
}
