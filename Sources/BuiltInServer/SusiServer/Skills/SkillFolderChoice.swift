public import Foundation

/// The skill folder the built-in server reads, chosen with `--skills DIR` and remembered in the
/// server's state directory (the file `skills`), so that later runs use it too; `--skills
/// bundled` goes back to the skills shipped with susi.
public enum SkillFolderChoice {
  /// The word that chooses the bundled skills.
  public static let bundled = "bundled"

  /// Why a skill folder cannot be used.
  public struct Problem: Error, Sendable, CustomStringConvertible {
    public var description: String
  }

  /// The folder to serve: the one `requested` names (remembered from now on), else the one
  /// remembered, else nil (the bundled skills). A requested folder must hold skill files.
  public static func resolve(requested: String?, serverStateDirectory: URL) throws(Problem)
    -> URL?
  {
    let file = serverStateDirectory.appendingPathComponent("skills")
    guard let requested else {
      guard let bytes = try? AtomicFile.read(file, limit: 4096),
        let path = String(validating: bytes, as: UTF8.self)?.trimmed, !path.isEmpty
      else { return nil }
      return URL(fileURLWithPath: path)
    }
    if requested == bundled {
      try? FileManager.default.removeItem(at: file)
      return nil
    }
    let folder = URL(fileURLWithPath: requested).standardizedFileURL
    guard SkillLibrary.hasSkillFiles(in: folder) else {
      throw Problem(
        description:
          "\(folder.path) holds no skills; skill files go in \(folder.path)/models/MODEL/GROUP/LANGUAGE/NAME.txt"
      )
    }
    do {
      try FileManager.default.createDirectory(
        at: serverStateDirectory, withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
      try AtomicFile.write(Array((folder.path + "\n").utf8), to: file)
    } catch {
      throw Problem(description: "cannot remember the skill folder in \(file.path): \(error)")
    }
    return folder
  }
}
