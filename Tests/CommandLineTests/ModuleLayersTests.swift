import Foundation
import Testing

/// The README's "Where things are" promises layers: a module imports only from layers below it.
/// This reads every source file's imports and holds the code to that promise.
@Suite struct ModuleLayersTests {
  /// Each module's folder and layer, lowest first, as the README lists them.
  static let layers: [(folder: String, module: String, layer: Int)] = [
    ("Sources/SusiJSON", "SusiJSON", 1),
    ("Sources/SusiCrypto", "SusiCrypto", 1),
    ("Sources/SusiFiles", "SusiFiles", 1),
    ("Sources/SusiHTTPTypes", "SusiHTTPTypes", 1),
    ("Sources/SusiClock", "SusiClock", 1),
    ("Sources/SusiTerminal", "SusiTerminal", 1),
    ("Sources/SusiCore", "SusiCore", 2),
    ("Sources/SusiEventLog", "SusiEventLog", 2),
    ("Sources/SusiHTTPClient", "SusiHTTPClient", 2),
    ("Sources/SusiStore", "SusiStore", 3),
    ("Sources/SusiHTTP", "SusiHTTP", 3),
    ("Sources/SusiRunner", "SusiRunner", 4),
    ("Sources/SusiDelivery", "SusiDelivery", 4),
    ("Sources/SusiServer", "SusiServer", 4),
    ("Sources/SusiAccess", "SusiAccess", 4),
    ("Sources/SusiCommandLine", "SusiCommandLine", 5),
    ("Sources/SusiApplication", "SusiApplication", 6),
    ("Frontends/Text", "SusiText", 7),
    ("Frontends/JSONLines", "SusiJSONLines", 7),
    ("Frontends/Webhook", "SusiWebhook", 7),
    ("Frontends/Replay", "SusiReplay", 7),
    ("Frontends/Web", "SusiWeb", 8),
    ("Frontends/susi", "susi", 9),
  ]

  /// Folders that are not part of the shipped layers: benchmarks, samples, test support, and the
  /// C modules that only wrap system headers.
  static let outside: Set<String> = [
    "Sources/SusiBench", "Sources/SusiSamples", "Sources/SusiCoreTesting", "Sources/SusiTesting",
    "Sources/SusiHTTPTesting", "Sources/CEpoll", "Sources/COpenSSL",
  ]

  static var root: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
  }

  @Test func everyModuleFolderHasALayer() throws {
    var folders: [String] = []
    for parent in ["Sources", "Frontends"] {
      let names = try FileManager.default.contentsOfDirectory(
        atPath: Self.root.appendingPathComponent(parent).path)
      folders += names.filter { !$0.hasPrefix(".") }.map { parent + "/" + $0 }
    }
    let known = Set(Self.layers.map(\.folder)).union(Self.outside)
    #expect(folders.filter { !known.contains($0) }.sorted() == [])
  }

  @Test func noModuleImportsFromItsOwnLayerOrAbove() throws {
    let layerOf = Dictionary(uniqueKeysWithValues: Self.layers.map { ($0.module, $0.layer) })
    var wrong: [String] = []
    for entry in Self.layers {
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
