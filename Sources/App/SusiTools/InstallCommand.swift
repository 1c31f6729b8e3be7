public import Foundation
public import SusiCommandLine
import SusiServer

/// `susi install` and `susi uninstall`: put this `susi` under a prefix with everything it reads
/// beside it (the built-in server's skills, the web pages, the manual page, shell completion),
/// and take exactly that away again. What was installed is listed in
/// `PREFIX/share/susi/installed-files`, which `uninstall` reads.
public enum InstallCommand {
  static let prefixOption = OptionSpec(
    .prefix, value: "DIR", help: "where to install (default: ~/.local)")

  /// The two commands; `webPages` finds the folder of the browser pages to install, if any.
  public static func commands(
    completions: @escaping @Sendable () -> [String: String],
    manPage: @escaping @Sendable () -> String, webPages: @escaping @Sendable () -> URL?
  ) -> [Command] {
    let unused = CommonOptions.specs.map(\.option).filter { $0 != .help && $0 != .version }
    let install = CommandSpec(
      name: "install", summary: "install this susi, its skills, web pages, man page and completion",
      usage: "install [--prefix DIR]",
      discussion: """
        Copies the running susi to PREFIX/bin, the built-in server's skills and the web pages to \
        PREFIX/share/susi, the manual page to PREFIX/share/man/man1 and completion for bash, zsh \
        and fish where those shells look under PREFIX. Run it from a release build: \
        swift run -c release susi install. Make sure PREFIX/bin is on your PATH.
        """,
      examples: ["swift run -c release susi install", "susi install --prefix /usr/local"],
      options: [prefixOption]
    ).refusing(unused)
    let uninstall = CommandSpec(
      name: "uninstall", summary: "remove what 'susi install' installed",
      usage: "uninstall [--prefix DIR]",
      discussion: """
        Removes every file that 'susi install' listed in PREFIX/share/susi/installed-files, and \
        the folders it made that are now empty. Your event log, credentials and the built-in \
        server's accounts (in the state folder) stay.
        """,
      examples: ["susi uninstall", "susi uninstall --prefix /usr/local"],
      options: [prefixOption]
    ).refusing(unused)
    return [
      Command(install) { invocation in
        run {
          try Installation(prefix: prefix(invocation)).install(completions(), manPage(), webPages())
        }
      },
      Command(uninstall) { invocation in
        run { try Installation(prefix: prefix(invocation)).uninstall() }
      },
    ]
  }

  static func prefix(_ invocation: Invocation) -> String {
    invocation.parsed.value(.prefix)
      ?? (invocation.environment["HOME"] ?? NSHomeDirectory()) + "/.local"
  }

  static func run(_ body: () throws -> String) -> Int32 {
    do {
      StandardStream.error.write(try body())
      return ExitCode.success
    } catch let error as InstallError {
      StandardStream.error.line("susi: \(error.message)")
      return error.code
    } catch {
      StandardStream.error.line("susi: \(error)")
      return ExitCode.ioError
    }
  }
}

struct InstallError: Error {
  var message: String
  var code: Int32
}

/// The files of one installation under `prefix`.
struct Installation {
  let prefix: URL

  init(prefix: String) throws {
    guard prefix.hasPrefix("/") else {
      throw InstallError(message: "--prefix takes an absolute path, not '\(prefix)'", code: 64)
    }
    self.prefix = URL(fileURLWithPath: prefix).standardizedFileURL
  }

  var manifest: URL { prefix.appendingPathComponent("share/susi/installed-files") }

  /// The completion files, by shell, where each shell looks under a prefix.
  static let completionPaths = [
    "bash": "share/bash-completion/completions/susi",
    "zsh": "share/zsh/site-functions/_susi",
    "fish": "share/fish/vendor_completions.d/susi.fish",
  ]

  func install(_ completions: [String: String], _ manPage: String, _ pages: URL?) throws -> String {
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    let skills: URL
    do { skills = try ServerConfiguration.bundledDataDirectory } catch {
      throw InstallError(message: "\(error)", code: ExitCode.noInput)
    }
    guard let pages else {
      throw InstallError(message: "the web pages of this susi are missing", code: ExitCode.noInput)
    }
    let binary = prefix.appendingPathComponent("bin/susi")
    guard binary.path != executable.path else {
      throw InstallError(message: "this susi is already the one in \(prefix.path)", code: 64)
    }
    var written: [String] = []
    try copy(executable, to: binary, into: &written)
    try copyTree(
      skills, to: prefix.appendingPathComponent("share/susi/DefaultSkills"), into: &written)
    try copyTree(pages, to: prefix.appendingPathComponent("share/susi/web"), into: &written)
    try write(manPage, to: prefix.appendingPathComponent("share/man/man1/susi.1"), into: &written)
    for (shell, path) in Self.completionPaths.sorted(by: { $0.key < $1.key }) {
      if let script = completions[shell] {
        try write(script, to: prefix.appendingPathComponent(path), into: &written)
      }
    }
    written.append(manifest.path)
    try write(written.joined(separator: "\n") + "\n", to: manifest, into: &written)
    var note = "Installed susi in \(binary.path) (\(written.count - 1) files).\n"
    let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
    if !path.contains(Substring(binary.deletingLastPathComponent().path)) {
      note += "\(binary.deletingLastPathComponent().path) is not on your PATH: add it there.\n"
    }
    return note
  }

  func uninstall() throws -> String {
    guard let text = try? String(contentsOf: manifest, encoding: .utf8) else {
      throw InstallError(
        message: "nothing installed by 'susi install' in \(prefix.path) (no \(manifest.path))",
        code: ExitCode.noInput)
    }
    var removed = 0
    var folders: Set<String> = []
    let inside = prefix.path + "/"
    for line in text.split(separator: "\n") {
      let path = URL(fileURLWithPath: String(line)).standardizedFileURL.path
      // Only files under the prefix: a manifest edited by hand cannot remove anything else.
      guard path.hasPrefix(inside) else { continue }
      if (try? FileManager.default.removeItem(atPath: path)) != nil { removed += 1 }
      var folder = URL(fileURLWithPath: path).deletingLastPathComponent()
      while folder.path.hasPrefix(inside) {
        folders.insert(folder.path)
        folder = folder.deletingLastPathComponent()
      }
    }
    // Deepest first, and only folders left empty.
    for folder in folders.sorted(by: { $0.count > $1.count }) {
      if (try? FileManager.default.contentsOfDirectory(atPath: folder))?.isEmpty == true {
        try? FileManager.default.removeItem(atPath: folder)
      }
    }
    return "Removed \(removed) files of susi from \(prefix.path).\n"
  }

  private func copy(_ source: URL, to target: URL, into written: inout [String]) throws {
    try makeParent(of: target)
    try? FileManager.default.removeItem(at: target)
    do { try FileManager.default.copyItem(at: source, to: target) } catch {
      throw InstallError(
        message: "cannot write \(target.path): \(error.localizedDescription)",
        code: ExitCode.cannotCreate)
    }
    written.append(target.path)
  }

  private func copyTree(_ source: URL, to target: URL, into written: inout [String]) throws {
    let files = FileManager.default.enumerator(atPath: source.path)?.compactMap { $0 as? String }
    for relative in files ?? [] {
      var isFolder: ObjCBool = false
      let from = source.appendingPathComponent(relative)
      guard FileManager.default.fileExists(atPath: from.path, isDirectory: &isFolder),
        !isFolder.boolValue
      else { continue }
      try copy(from, to: target.appendingPathComponent(relative), into: &written)
    }
  }

  private func write(_ text: String, to target: URL, into written: inout [String]) throws {
    try makeParent(of: target)
    do { try text.write(to: target, atomically: true, encoding: .utf8) } catch {
      throw InstallError(
        message: "cannot write \(target.path): \(error.localizedDescription)",
        code: ExitCode.cannotCreate)
    }
    if !written.contains(target.path) { written.append(target.path) }
  }

  private func makeParent(of target: URL) throws {
    do {
      try FileManager.default.createDirectory(
        at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
    } catch {
      throw InstallError(
        message: "cannot create \(target.deletingLastPathComponent().path): "
          + error.localizedDescription, code: ExitCode.cannotCreate)
    }
  }
}
