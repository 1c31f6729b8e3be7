import Foundation
import Testing

/// The README's "Where things are" promises layers: a module imports only from layers below it.
/// This reads every source file's imports and holds the code to that promise.
@Suite struct ModuleLayersTests {
  /// The layer folders of `Sources/` and their layers, lowest first. The built-in server shares
  /// the core's layer: it is a second product on the plumbing and never imports the core.
  static let layerFolders: [(folder: String, layer: Int)] = [
    ("Kit", 0), ("Core", 10), ("BuiltInServer", 10), ("Runtime", 20), ("App", 30),
  ]

  /// Steps inside a layer folder, for modules that build on others in the same folder; a module
  /// not listed is on the folder's first step. Modules on the same step never import each other.
  static let steps: [String: Int] = [
    "SusiHTTPClient": 1, "SusiHTTPServer": 2, "SusiOperatorLog": 3,
    "SusiStore": 1, "SusiRunner": 2, "SusiDelivery": 2, "SusiAccess": 2, "SusiPostgresLog": 3,
    "SusiApplication": 1, "SusiTools": 1,
  ]

  /// The frontends, above every layer folder: the web frontend serves the API of `susi serve`,
  /// and `susi` ties them all together.
  static let frontends: [(folder: String, module: String, layer: Int)] = [
    ("Text", "SusiText", 40), ("JSONLines", "SusiJSONLines", 40), ("Serve", "SusiServe", 40),
    ("Web", "SusiWeb", 41), ("susi", "susi", 42),
  ]

  /// Folders that are not part of the shipped layers: benchmarks, the fuzz target, test support
  /// and samples.
  static let outside: Set<String> = ["Sources/Benchmarks", "Sources/Fuzz", "Sources/Testing"]

  /// Each module's folder and layer: the layer of its folder plus its step inside it. C modules
  /// (`C…`) only wrap system headers.
  static var layers: [(folder: String, module: String, layer: Int)] {
    get throws {
      var result: [(folder: String, module: String, layer: Int)] = []
      for entry in layerFolders {
        let path = "Sources/\(entry.folder)"
        for name in try folderNames(path) where !name.hasPrefix("C") {
          result.append((path + "/" + name, name, entry.layer + (steps[name] ?? 0)))
        }
      }
      return result + frontends.map { ("Frontends/" + $0.folder, $0.module, $0.layer) }
    }
  }

  static func folderNames(_ path: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(path).path)
      .filter { !$0.hasPrefix(".") }
  }

  static var root: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
  }

  @Test func everyFolderIsALayerOrAFrontend() throws {
    let known = Set(Self.layerFolders.map { "Sources/" + $0.folder }).union(Self.outside)
    let sources = try Self.folderNames("Sources").map { "Sources/" + $0 }
    #expect(sources.filter { !known.contains($0) }.sorted() == [])
    #expect(Set(try Self.folderNames("Frontends")) == Set(Self.frontends.map(\.folder)))
  }

  @Test func noModuleImportsFromItsOwnLayerOrAbove() throws {
    let layers = try Self.layers
    let layerOf = Dictionary(uniqueKeysWithValues: layers.map { ($0.module, $0.layer) })
    var wrong: [String] = []
    for entry in layers {
      let folder = Self.root.appendingPathComponent(entry.folder)
      let files = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String }
      for file in try #require(files) where file.hasSuffix(".swift") {
        let text = try String(
          contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
        for imported in Self.imports(in: text) {
          guard let layer = layerOf[imported], imported != entry.module else { continue }
          if layer >= entry.layer { wrong.append("\(entry.folder)/\(file) imports \(imported)") }
        }
      }
    }
    #expect(wrong == [])
  }

  @Test func importLinesAreReadWithOrWithoutAnAccessLevel() {
    let text = "import Foundation\npublic import SusiStore\n  @testable import SusiCore\n"
    #expect(Self.imports(in: text) == ["Foundation", "SusiStore", "SusiCore"])
  }

  /// The modules a Swift file imports, with or without an access level or `@testable`.
  static func imports(in text: String) -> [String] {
    text.split(separator: "\n").compactMap { line in
      var words = line.split(separator: " ").map(String.init)
      while let first = words.first, ["public", "internal", "package", "@testable"].contains(first)
      {
        words.removeFirst()
      }
      guard words.count >= 2, words[0] == "import" else { return nil }
      return words[1]
    }
  }
}
