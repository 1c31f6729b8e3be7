import Foundation

/// A program from outside the toolchain that some tests start themselves (a browser, a
/// database). Outside CI, tests that need a missing one are skipped with one line naming the
/// Debian package; in CI (`CI=true`) they run, and fail, so a missing install is never hidden.
public struct OutsideProgram: Sendable {
  /// The environment variable that names the program's binary instead of the PATH.
  public let variable: String
  /// The names to look for on the PATH, in order.
  public let names: [String]
  /// The Debian package that installs it.
  public let package: String

  /// Folders searched after the PATH (for programs a package installs off the PATH).
  public let folders: [String]

  public init(variable: String, names: [String], package: String, folders: [String] = []) {
    self.variable = variable
    self.names = names
    self.package = package
    self.folders = folders
  }

  /// The binary named by `variable`, or the first of `names` on the PATH; nil when neither.
  public var path: String? {
    let environment = ProcessInfo.processInfo.environment
    if let path = environment[variable], !path.isEmpty { return path }
    for folder in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
      + folders
    {
      for name in names where FileManager.default.isExecutableFile(atPath: "\(folder)/\(name)") {
        return "\(folder)/\(name)"
      }
    }
    return nil
  }

  /// Whether the tests that need it should run: when it is there, and always in CI.
  public var testsShouldRun: Bool {
    path != nil || ProcessInfo.processInfo.environment["CI"] == "true"
  }

  /// The one line a skipped suite shows.
  public var skipNote: String {
    "\(names[0]) is not installed: apt-get install -y \(package) (or set \(variable))"
  }
}
