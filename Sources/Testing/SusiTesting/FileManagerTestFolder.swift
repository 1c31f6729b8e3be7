import Foundation
import SusiHTTPTesting

/// A fresh folder under the temporary directory for one test.
public struct FileManagerTestFolder: Sendable {
  public let path: String

  public init() {
    path =
      TestScratch.root.appendingPathComponent(
        "susi-text-\(UUID().uuidString)"
      ).path
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  /// Writes `text` to the file `name` in the folder and returns its path.
  public func write(_ name: String, _ text: String) throws -> String {
    let file = path + "/" + name
    try text.write(toFile: file, atomically: true, encoding: .utf8)
    return file
  }
}
