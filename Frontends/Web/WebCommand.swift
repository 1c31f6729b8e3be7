import Foundation
import SusiAccess
import SusiApplication
public import SusiCommandLine
import SusiCore
import SusiFiles
public import SusiServe
import SusiTerminal

#if canImport(Glibc)
  import Glibc
#endif

/// `susi web`: the browser frontend on loopback, and the mount `susi serve --web` uses.
public enum WebCommand {
  /// The command's words, options and help.
  public static let spec = CommandSpec(
    name: "web",
    summary: "chat, browse skills and step through the log in a browser (on this machine only)",
    usage: "web [--port N] [--host ADDR] [--open]",
    discussion: """
      Serves a web page on loopback and prints its URL, which holds a secret token: opening it
      signs that browser tab in. A link works once and for 10 minutes; press Enter where susi
      web runs for a new one. The tab keeps its session to itself and sends it in a header
      (never a cookie, so no other program on this machine's ports ever gets it); every other
      request is refused, and changes must come from the page itself (its Origin is checked).
      With --open, the link goes to the browser in a file only you can read, never on a
      command line. The page uses the same API as 'susi serve' (/actions, /state,
      /events, /events/stream) plus /session, /inspector/state?seq=N, /inspector/log and
      /images?url=…, which serves pictures from susi's image cache only.
      Ctrl-C or SIGTERM stops it. To share the pages with a team, use 'susi serve --web'.
      """,
    examples: [
      "susi web",
      "susi web --port 8080 --open",
      "susi web --state-dir /tmp/demo --log /tmp/demo/events.jsonl",
    ],
    options: [
      .port(default: 0),
      OptionSpec(
        .host, value: "ADDR", help: "loopback address to bind: 127.0.0.1 (default) or ::1"),
      OptionSpec(.open, help: "open the URL in the system browser (xdg-open)"),
    ] + ServingTLSFiles.specs + OperatorLogOptions.specs)

  /// Event streams open at once (one per browser tab) across every session of one start.
  static let maximumStreams = 16

  /// The command for the `susi` command table.
  public static let command = Command(spec) { invocation in await run(invocation) }

  /// What `susi serve --web` puts in front of its webhook handler.
  public static let mount: ServeCommand.WebMount = { service, app in
    let pages = WebPages.installed()
    if pages == nil { StandardStream.error.line("susi serve: warning: \(notInstalled)") }
    return WebHandler(
      mode: .mounted, service: service, app: app,
      pages: pages ?? WebPages(folder: URL(fileURLWithPath: "/nonexistent")))
  }

  static var notInstalled: String {
    "the web pages are not installed (looked in "
      + WebPages.candidates.map(\.path).joined(separator: " and ")
      + "); copy the folder Frontends/Web/Resources of the susi sources to one of those places"
  }

  static func run(_ invocation: Invocation) async -> Int32 {
    let host = invocation.parsed.value(.host) ?? "127.0.0.1"
    guard ["127.0.0.1", "::1"].contains(host) else {
      return fail(
        "--host takes 127.0.0.1 or ::1, not '\(host)'; to share the pages, use 'susi serve --web'",
        ExitCode.usage)
    }
    guard let listening = ListeningOptions.resolve(invocation, component: "web", defaultPort: 0)
    else { return ExitCode.usage }
    guard let pages = WebPages.installed() else {
      return fail(notInstalled, ExitCode.noInput)
    }
    let app: SusiApp
    do {
      app = try await SusiApp.start(invocation.common, origin: .web)
    } catch {
      return fail(error.message, error.exitCode)
    }
    for warning in app.warnings { StandardStream.error.line("susi web: warning: \(warning)") }
    let service = await WebhookService.start(
      store: app.store, keys: KeyFile.none(),
      options: WebhookHandler.Options(
        maximumStreamsPerKey: maximumStreams, origin: .web))
    let links = StartLinks()
    let handler = WebHandler(mode: .local(links), service: service, app: app, pages: pages)
    let openFile = app.options.stateDirectory + "/web-open.html"
    var reader: Task<Void, Never>?
    let code = await service.serveUntilSignalled(
      handler, host: host, listening, app: app
    ) { baseURL, bound in
      handler.listening(on: bound, secure: listening.tls != nil)
      let url = baseURL + "/?token=" + links.make()
      if invocation.parsed.has(.open) { openInBrowser(url, through: openFile) }
      StandardStream.error.line(
        "susi web: the link signs in one browser tab, once, within 10 minutes; "
          + "press Enter here for a new one")
      reader = Task { await printNewLinks(baseURL, links) }
      return url
    }
    reader?.cancel()
    try? PrivateFile.remove(openFile)
    return code
  }

  /// Prints a fresh link each time a line (Enter) comes on standard input, until it ends.
  private static func printNewLinks(_ baseURL: String, _ links: StartLinks) async {
    // Reading the terminal from the background would stop the process: make it an error.
    signal(SIGTTIN, SIG_IGN)
    let input = StandardInput()
    while !Task.isCancelled {
      guard case .line = await input.nextLine() else { return }
      StandardStream.output.line(baseURL + "/?token=" + links.make())
    }
  }

  /// Hands the URL to `xdg-open` inside a page only this user can read (`file`, mode 0600),
  /// so the token never stands on a command line; without xdg-open, says so and keeps serving.
  private static func openInBrowser(_ url: String, through file: String) {
    let page = """
      <!doctype html><meta charset="utf-8"><meta name="referrer" content="no-referrer">
      <meta http-equiv="refresh" content="0;url=\(url)"><title>susi</title>
      <a href="\(url)">Open susi</a>

      """
    do {
      try PrivateFile.write(Array(page.utf8), to: file)
    } catch {
      StandardStream.error.line("susi web: cannot write \(file): \(error.message)")
      return
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["xdg-open", file]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    process.terminationHandler = { finished in
      let status = finished.terminationStatus
      guard status != 0 else { return }
      // `env` answers 127 when it finds no such program.
      let why = status == 127 ? "is not installed" : "could not open a browser"
      StandardStream.error.line("susi web: xdg-open \(why); open the URL above yourself")
    }
    do {
      try process.run()
    } catch {
      StandardStream.error.line("susi web: cannot run xdg-open; open the URL above yourself")
    }
  }

  private static func fail(_ message: String, _ code: Int32) -> Int32 {
    StandardStream.error.line("susi web: \(message)")
    return code
  }
}
