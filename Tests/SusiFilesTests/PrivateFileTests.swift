import Foundation
import SusiFiles
import SusiHTTPTesting
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@Suite struct PrivateFileTests {
  private func folder() throws -> String {
    let path = TestScratch.root.appendingPathComponent(
      "susi-files-\(UUID().uuidString)"
    ).path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  private func mode(_ path: String) -> mode_t {
    var info = stat()
    stat(path, &info)
    return info.st_mode & 0o777
  }

  @Test func writesWithTheFinalModeEvenUnderAPermissiveUmask() throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let old = umask(0)
    defer { umask(old) }
    try PrivateFile.write(Array("secret".utf8), to: dir + "/token")
    #expect(mode(dir + "/token") == 0o600)
    #expect(try PrivateFile.read(dir + "/token", ownerOnly: true) == Array("secret".utf8))
  }

  @Test func replacesTheWholeFileAndLeavesNoTemporaryFiles() throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try PrivateFile.write(Array("a much longer first version".utf8), to: dir + "/state.json")
    try PrivateFile.write(Array("two".utf8), to: dir + "/state.json")
    #expect(try PrivateFile.read(dir + "/state.json", ownerOnly: false) == Array("two".utf8))
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["state.json"])
  }

  @Test func aMissingFileReadsAsNil() throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    #expect(try PrivateFile.read(dir + "/nothing", ownerOnly: true) == nil)
  }

  @Test func refusesASecretOthersCanReadWithAFixItMessage() throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/token"
    try PrivateFile.write(Array("secret".utf8), to: path)
    chmod(path, 0o644)
    #expect(
      throws: PrivateFile.Failure(
        path: path,
        message:
          "permissions 0644 for '\(path)' are too open: it holds a secret; run chmod 600 \(path)")
    ) {
      try PrivateFile.read(path, ownerOnly: true)
    }
    // Files that hold no secret may be readable by others.
    #expect(try PrivateFile.read(path, ownerOnly: false) == Array("secret".utf8))
  }

  @Test func refusesSymbolicLinksAndOversizeFiles() throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try PrivateFile.write(Array(repeating: 0x41, count: 100), to: dir + "/big")
    symlink(dir + "/big", dir + "/link")
    #expect(throws: PrivateFile.Failure.self) {
      try PrivateFile.read(dir + "/link", ownerOnly: false)
    }
    #expect(throws: PrivateFile.Failure.self) {
      try PrivateFile.read(dir + "/big", maximumBytes: 99, ownerOnly: false)
    }
    #expect(try PrivateFile.read(dir + "/big", maximumBytes: 100, ownerOnly: false)?.count == 100)
  }

  @Test func makesFoldersOwnerOnlyAndRefusesAFileInTheWay() throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try PrivateFile.makeDirectory(dir + "/a/b")
    #expect(mode(dir + "/a") == 0o700)
    #expect(mode(dir + "/a/b") == 0o700)
    try PrivateFile.write([], to: dir + "/file")
    #expect(throws: PrivateFile.Failure.self) { try PrivateFile.makeDirectory(dir + "/file") }
  }

  @Test func removesDurablyAndToleratesAFileAlreadyGone() throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try PrivateFile.write([1], to: dir + "/x")
    try PrivateFile.remove(dir + "/x")
    try PrivateFile.remove(dir + "/x")
    #expect(!FileManager.default.fileExists(atPath: dir + "/x"))
  }
}
