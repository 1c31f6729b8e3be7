import Foundation
import SusiFiles
import SusiJSON

/// The offline web: the web-search corpus, the static pages for link previews, the icons
/// search results point at, and the default skill image.
///
/// Each is taken from the data directory when it has one, else from the bundled data.
struct WebContent: Sendable {
  /// Corpus entries (`websearch/corpus.json`, member `entries`).
  let corpus: [JSONObject]
  let pagesDirectory: URL?
  let iconsDirectory: URL?
  let defaultImage: URL?
  /// Why the corpus could not be read, if it could not.
  let problem: String?

  init(dataDirectory: URL, fallbackDirectory: URL) {
    func pick(_ relative: String) -> URL? {
      for base in [dataDirectory, fallbackDirectory] {
        let url = base.appendingPathComponent(relative)
        if FileManager.default.fileExists(atPath: url.path) { return url }
      }
      return nil
    }
    pagesDirectory = pick("pages")
    iconsDirectory = pick("websearch/i")
    defaultImage = pick("images/default.jpg")
    var entries: [JSONObject] = []
    var problem: String?
    if let corpus = pick("websearch/corpus.json") {
      do {
        let bytes = try AtomicFile.read(corpus) ?? []
        let document = try JSONParser.parse(bytes)
        for entry in try FieldReader(document, path: "corpus.json").array("entries") {
          if let object = entry.object { entries.append(object) }
        }
      } catch {
        problem = "websearch/corpus.json: \(error)"
      }
    }
    corpus = entries
    self.problem = problem
  }

  /// A file inside `directory` named by one path segment, through `ContainedFile`.
  static func file(named name: String, in directory: URL?) -> URL? {
    directory.flatMap { ContainedFile.resolve([name], under: $0) }
  }
}
