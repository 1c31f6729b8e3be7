import Foundation
import SusiCommandLine
import SusiCore
import SusiStore
import SusiTerminal

// Login, signup, logout, settings and the server in use.

extension TextSession {
  func login(email given: String?) async throws(Outcome) {
    let email = try await value(given, prompt: "Email: ")
    try await logIn(email: email, password: try await secret(prompt: "Password: ", confirm: false))
  }

  /// Logs in, then fetches the user's settings (a failure there is only noted: the login
  /// stands).
  func logIn(email: String, password: Secret) async throws(Outcome) {
    let loggedIn = try await result(
      of: .login(Action.Login(email: email, password: password)), doing: "login"
    ) { if case .loggedIn(let loggedIn) = $0.action { loggedIn } else { nil } }
    var text = "Logged in as \(loggedIn.email.singleLine)"
    if let expiry = loggedIn.expiresAt { text += " until \(renderer.dateText(expiry))" }
    console.print(text + ".")
    // The settings come with the login, so `settings` shows them without a `sync` first.
    if let synced = await request(.syncSettings, progress: "Fetching your settings"),
      case .requestFailed(let failed) = synced.action
    {
      console.note("Your settings were not fetched: \(Self.describe(failed.error)).")
    }
  }

  /// The usual SUSI password rule, shown before a new password is asked for (the server may
  /// have another; it says so if it does).
  static let passwordRule =
    "A password needs 8 to 64 characters with a capital letter, a number and a special character."

  func signup(email given: String?) async throws(Outcome) {
    let email = try await value(given, prompt: "Email: ")
    if context.passwordFile == nil { console.note(Self.passwordRule) }
    let password = try await secret(prompt: "Choose a password: ", confirm: true)
    let signedUp = try await result(
      of: .signup(Action.Signup(email: email, password: password)), doing: "signup"
    ) { if case .signedUp(let signedUp) = $0.action { signedUp } else { nil } }
    let message = signedUp.message.singleLine
    console.print(message.isEmpty ? "Signed up as \(signedUp.email.singleLine)." : message)
    // The password just typed logs in too; a server that wants the address confirmed first
    // refuses, and the person logs in later.
    do { try await logIn(email: email, password: password) } catch {
      console.print(
        "Log in with " + command("/login \(signedUp.email)", "susi login \(signedUp.email)")
          + " once the account is ready.")
    }
  }

  func logout() async throws(Outcome) {
    _ = try await result(of: .logout, doing: "logout") {
      if case .loggedOut = $0.action { () } else { nil }
    }
    console.print("Logged out.")
  }

  /// Prints the settings as last confirmed by the server.
  func showSettings() async {
    let state = await store.state
    if !state.settings.isEmpty {
      console.print(renderer.settings(state.settings))
    } else if state.session == nil {
      console.print(
        "No settings yet. Settings are kept on the server for each user: log in with "
          + command("/login EMAIL", "susi login EMAIL") + ".")
    } else {
      console.print(
        "No settings yet. Fetch yours with \(command("/sync", "susi settings sync")) or change one with "
          + command("/set KEY VALUE", "susi settings set KEY VALUE") + ".")
    }
  }

  func set(_ name: String, _ text: String) async throws(Outcome) {
    // Keys are matched ignoring case; unknown keys go to the reducer, which lists the valid ones.
    let key = SettingKey.allowed.first { $0.key.lowercased() == name.lowercased() }?.key ?? name
    guard let value = SettingKey.parse(text, for: key) else {
      console.error(
        SettingKey.problem(key: key, value: .string(text))
          ?? "'\(text)' does not fit setting '\(key)'")
      throw .usage
    }
    let changed = try await result(
      of: .changeSettings(Action.ChangeSettings(settings: [key: value])), doing: "changing \(key)"
    ) { if case .settingsChanged(let changed) = $0.action { changed } else { nil } }
    console.print(renderer.settings(changed.settings))
  }

  func sync() async throws(Outcome) {
    let synced = try await result(of: .syncSettings, doing: "syncing the settings") {
      if case .settingsSynced(let synced) = $0.action { synced } else { nil }
    }
    console.print(
      synced.settings.isEmpty
        ? "The server holds no settings for you yet." : renderer.settings(synced.settings))
  }

  /// Shows the server in use, or switches to `url` (`embedded` = the built-in server).
  func server(_ url: String?) async throws(Outcome) {
    guard let url else {
      console.print("Using \(await serverDescription()).")
      return
    }
    _ = try await result(of: .setServer(Action.SetServer(url: url)), doing: "changing the server") {
      if case .serverChanged = $0.action { () } else { nil }
    }
    console.print("Now using \(await serverDescription()).")
    serverSource = .remembered
    if let stateDirectory = context.stateDirectory {
      do {
        try RememberedServer.remember(
          Validation.serverURL(url) ?? url, stateDirectory: stateDirectory)
      } catch {
        console.error("susi will not remember this server: \(error)")
      }
    }
  }

  func serverDescription() async -> String {
    let server = await store.state.server
    guard server == State.embeddedServer else { return server }
    if let url = context.embeddedServerURL { return "the built-in server at \(url)" }
    return "the built-in server"
  }

  // MARK: Asking for values

  /// `given`, else a line asked for with `prompt` (shown only on a terminal).
  func value(_ given: String?, prompt: String) async throws(Outcome) -> String {
    if let given, !given.isEmpty { return given }
    return try await readLine(
      secret: false, prompt: prompt, missing: "no \(prompt.trimmed.dropLast().lowercased()) given")
  }

  /// A password: from `--password-file`, else typed without echo on a terminal (twice when
  /// `confirm`), else the next input line.
  func secret(prompt: String, confirm: Bool) async throws(Outcome) -> Secret {
    if let path = context.passwordFile {
      guard let data = FileManager.default.contents(atPath: path) else {
        console.error("cannot read the password file \(path)")
        throw .noInput
      }
      let text = String(decoding: data, as: UTF8.self)
      let firstLine =
        text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
      let password = String(firstLine.hasSuffix("\r") ? firstLine.dropLast() : firstLine)
      guard !password.isEmpty else {
        console.error("the password file \(path) is empty")
        throw .usage
      }
      return Secret(password)
    }
    let missing =
      console.interactive
      ? "no password given"
      : "no password given: put it on the next input line or use --password-file FILE"
    let first = try await readLine(secret: true, prompt: prompt, missing: missing)
    if confirm && console.interactive {
      let again = try await readLine(
        secret: true, prompt: "Repeat the password: ", missing: missing)
      guard again == first else {
        console.error("the passwords differ; nothing was sent")
        throw .usage
      }
    }
    return Secret(first)
  }

  /// Reads one input line for a command (not a chat line), showing `prompt` on a terminal;
  /// trimmed unless `secret`, when echo is off while it is typed and restored on every way out.
  /// Echo goes off before the prompt appears, so nothing typed after the prompt is echoed or
  /// thrown away. An empty line or the end of input prints `missing`.
  func readLine(secret: Bool, prompt: String, missing: String) async throws(Outcome) -> String {
    waitingForSecret = true
    defer { waitingForSecret = false }
    if console.interactive {
      if secret { TerminalEcho.disable() }
      console.writeError(prompt)
    }
    let read = await input.nextLine()
    if secret && console.interactive { TerminalEcho.restore() }
    switch read {
    case .line(let line) where !(secret ? line : line.trimmed).isEmpty:
      return secret ? line : line.trimmed
    case .cancelled:
      console.error("cancelled")
      throw .interrupted
    default:
      console.error(missing)
      throw .usage
    }
  }
}

extension TextCommands {
  /// The commands of this file, in the order `/help` lists them.
  static let accountCommands: [TextCommandRow] = [
    TextCommandRow(
      name: "settings", help: "show your settings",
      shell: Shell(
        summary: "show, change or fetch your settings",
        usage: "settings [set KEY VALUE | sync]",
        discussion: """
          'settings' shows the settings last confirmed by the server, 'settings set KEY VALUE'
          changes one (needs a login), 'settings sync' fetches yours from the server. The server
          keeps every value as text; true/false also read yes/no, on/off and 1/0. The keys:

          """ + settingKeys,
        examples: ["susi settings", "susi settings set theme dark", "susi settings sync"],
        arguments: 0...100),
      data: [.settingsChanged, .settingsSynced]
    ) { session, _ in await session.showSettings() },
    TextCommandRow(
      name: "set", usage: "KEY VALUE", arguments: .setting,
      help: "change a setting on the server (logged in)"
    ) { try await $0.set($1.key ?? "", $1.text ?? "") },
    TextCommandRow(name: "sync", help: "fetch your settings from the server (logged in)") {
      session, _ in try await session.sync()
    },
    TextCommandRow(
      name: "login", usage: "[EMAIL]",
      arguments: .word(required: false, tooMany: "takes one EMAIL (the password is asked for)"),
      help: "log in; the password is asked for without echo",
      shell: Shell(
        summary: "log in to the SUSI server", usage: "login [EMAIL] [--password-file FILE]",
        discussion: """
          The password is asked for without echo on a terminal, read from the first line of stdin
          otherwise, or from --password-file. It is never taken from the command line or the
          environment, and never written to the event log.
          """,
        examples: [
          "susi login me@example.org",
          "susi login me@example.org --password-file ~/.susi-password",
        ],
        options: [passwordFile], arguments: 0...1),
      data: [.loggedIn]
    ) { try await $0.login(email: $1.text) },
    TextCommandRow(
      name: "logout", help: "log out",
      shell: Shell(examples: ["susi logout"]),
      data: [.loggedOut]
    ) { session, _ in try await session.logout() },
    TextCommandRow(
      name: "signup", usage: "[EMAIL]",
      arguments: .word(required: false, tooMany: "takes one EMAIL (the password is asked for)"),
      help: "create an account",
      shell: Shell(
        summary: "create an account on the SUSI server",
        usage: "signup [EMAIL] [--password-file FILE]",
        discussion:
          "The password is read the same way as for login; on a terminal it is asked for twice.",
        examples: ["susi signup me@example.org"], options: [passwordFile], arguments: 0...1),
      data: [.signedUp]
    ) { try await $0.signup(email: $1.text) },
    TextCommandRow(
      name: "server", usage: "[URL]", arguments: .word(required: false, tooMany: "takes one URL"),
      help: "show the server in use, or switch ('embedded' = built in)"
    ) { try await $0.server($1.text) },
  ]
}
