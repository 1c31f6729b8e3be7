import Foundation
import SusiCommandLine
import SusiCore
import SusiStore
import SusiTerminal

// Login, signup, logout, settings and the server in use.

extension TextSession {
  func login(email given: String?) async -> Outcome {
    let email: String
    let password: Secret
    do throws(Unanswered) {
      email = try await value(given, prompt: "Email: ")
      password = try await secret(prompt: "Password: ", confirm: false)
    } catch {
      return error.outcome
    }
    return await logIn(email: email, password: password)
  }

  /// Logs in, then fetches the user's settings (a failure there is only noted: the login
  /// stands).
  func logIn(email: String, password: Secret) async -> Outcome {
    guard let result = await request(.login(Action.Login(email: email, password: password))) else {
      return .failed
    }
    if let failed = failure(result, doing: "login") { return failed }
    guard case .loggedIn(let loggedIn) = result.action else {
      return unexpected(result, doing: "login")
    }
    var text = "Logged in as \(loggedIn.email.singleLine)"
    if let expiry = loggedIn.expiresAt { text += " until \(renderer.dateText(expiry))" }
    console.print(text + ".")
    // The settings come with the login, so `settings` shows them without a `sync` first.
    if let synced = await request(.syncSettings, progress: "Fetching your settings"),
      case .requestFailed(let failed) = synced.action
    {
      console.note("Your settings were not fetched: \(Self.describe(failed.error)).")
    }
    return .ok
  }

  /// The usual SUSI password rule, shown before a new password is asked for (the server may
  /// have another; it says so if it does).
  static let passwordRule =
    "A password needs 8 to 64 characters with a capital letter, a number and a special character."

  func signup(email given: String?) async -> Outcome {
    let email: String
    let password: Secret
    do throws(Unanswered) {
      email = try await value(given, prompt: "Email: ")
      if context.passwordFile == nil { console.note(Self.passwordRule) }
      password = try await secret(prompt: "Choose a password: ", confirm: true)
    } catch {
      return error.outcome
    }
    guard let result = await request(.signup(Action.Signup(email: email, password: password)))
    else { return .failed }
    if let failed = failure(result, doing: "signup") { return failed }
    guard case .signedUp(let signedUp) = result.action else {
      return unexpected(result, doing: "signup")
    }
    let message = signedUp.message.singleLine
    console.print(message.isEmpty ? "Signed up as \(signedUp.email.singleLine)." : message)
    // The password just typed logs in too; a server that wants the address confirmed first
    // refuses, and the person logs in later.
    if await logIn(email: email, password: password) != .ok {
      console.print(
        "Log in with " + command("/login \(signedUp.email)", "susi login \(signedUp.email)")
          + " once the account is ready.")
    }
    return .ok
  }

  func logout() async -> Outcome {
    guard let result = await request(.logout) else { return .failed }
    if let failed = failure(result, doing: "logout") { return failed }
    guard case .loggedOut = result.action else { return unexpected(result, doing: "logout") }
    console.print("Logged out.")
    return .ok
  }

  /// Prints the settings as last confirmed by the server.
  func showSettings() async -> Outcome {
    let state = await store.state
    if state.settings.isEmpty {
      if state.session == nil {
        console.print(
          "No settings yet. Settings are kept on the server for each user: log in with "
            + command("/login EMAIL", "susi login EMAIL") + ".")
      } else {
        console.print(
          "No settings yet. Fetch yours with \(command("/sync", "susi settings sync")) or change one with "
            + command("/set KEY VALUE", "susi settings set KEY VALUE") + ".")
      }
    } else {
      console.print(renderer.settings(state.settings))
    }
    return .ok
  }

  func set(_ name: String, _ text: String) async -> Outcome {
    // Keys are matched ignoring case; unknown keys go to the reducer, which lists the valid ones.
    let key = SettingKey.allowed.first { $0.key.lowercased() == name.lowercased() }?.key ?? name
    guard let value = SettingKey.parse(text, for: key) else {
      console.error(
        SettingKey.problem(key: key, value: .string(text))
          ?? "'\(text)' does not fit setting '\(key)'")
      return .usage
    }
    let action = Action.changeSettings(Action.ChangeSettings(settings: [key: value]))
    guard let result = await request(action) else { return .failed }
    if let failed = failure(result, doing: "changing \(key)") { return failed }
    guard case .settingsChanged(let changed) = result.action else {
      return unexpected(result, doing: "changing \(key)")
    }
    console.print(renderer.settings(changed.settings))
    return .ok
  }

  func sync() async -> Outcome {
    guard let result = await request(.syncSettings) else { return .failed }
    if let failed = failure(result, doing: "syncing the settings") { return failed }
    guard case .settingsSynced(let synced) = result.action else {
      return unexpected(result, doing: "syncing the settings")
    }
    console.print(
      synced.settings.isEmpty
        ? "The server holds no settings for you yet." : renderer.settings(synced.settings))
    return .ok
  }

  /// Shows the server in use, or switches to `url` (`embedded` = the built-in server).
  func server(_ url: String?) async -> Outcome {
    guard let url else {
      console.print("Using \(await serverDescription()).")
      return .ok
    }
    guard let result = await request(.setServer(Action.SetServer(url: url))) else { return .failed }
    if let failed = failure(result, doing: "changing the server") { return failed }
    guard case .serverChanged = result.action else {
      return unexpected(result, doing: "changing the server")
    }
    console.print("Now using \(await serverDescription()).")
    serverSource = .remembered
    if let stateDirectory = context.stateDirectory {
      do {
        try RememberedServer(server: Validation.serverURL(url) ?? url).save(
          stateDirectory: stateDirectory)
      } catch {
        console.error("susi will not remember this server: \(error)")
      }
    }
    return .ok
  }

  func serverDescription() async -> String {
    let server = await store.state.server
    guard server == State.embeddedServer else { return server }
    if let url = context.embeddedServerURL { return "the built-in server at \(url)" }
    return "the built-in server"
  }

  // MARK: Asking for values

  /// Why a value a command needs was not had (the reason is printed): the command ends with
  /// `outcome`, so a missing password is a usage error, not an interruption.
  struct Unanswered: Error {
    var outcome: Outcome
  }

  /// `given`, else a line asked for with `prompt` (shown only on a terminal).
  func value(_ given: String?, prompt: String) async throws(Unanswered) -> String {
    if let given, !given.isEmpty { return given }
    switch await readLine(secret: false, prompt: prompt) {
    case .line(let line) where !line.trimmed.isEmpty:
      return line.trimmed
    case .cancelled:
      console.error("cancelled")
      throw Unanswered(outcome: .interrupted)
    default:
      console.error("no \(prompt.trimmed.dropLast().lowercased()) given")
      throw Unanswered(outcome: .usage)
    }
  }

  /// A password: from `--password-file`, else typed without echo on a terminal (twice when
  /// `confirm`), else the next input line.
  func secret(prompt: String, confirm: Bool) async throws(Unanswered) -> Secret {
    if let path = context.passwordFile {
      guard let data = FileManager.default.contents(atPath: path) else {
        console.error("cannot read the password file \(path)")
        throw Unanswered(outcome: .noInput)
      }
      let text = String(decoding: data, as: UTF8.self)
      let firstLine =
        text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
      let password = String(firstLine.hasSuffix("\r") ? firstLine.dropLast() : firstLine)
      guard !password.isEmpty else {
        console.error("the password file \(path) is empty")
        throw Unanswered(outcome: .usage)
      }
      return Secret(password)
    }
    let first = try await readSecret(prompt: prompt)
    if confirm && console.interactive {
      let again = try await readSecret(prompt: "Repeat the password: ")
      guard again == first else {
        console.error("the passwords differ; nothing was sent")
        throw Unanswered(outcome: .usage)
      }
    }
    return Secret(first)
  }

  private func readSecret(prompt: String) async throws(Unanswered) -> String {
    switch await readLine(secret: true, prompt: prompt) {
    case .line(let line) where !line.isEmpty:
      return line
    case .cancelled:
      console.error("cancelled")
      throw Unanswered(outcome: .interrupted)
    default:
      console.error(
        console.interactive
          ? "no password given"
          : "no password given: put it on the next input line or use --password-file FILE")
      throw Unanswered(outcome: .usage)
    }
  }

  /// Reads one input line for a command (not a chat line), showing `prompt` on a terminal; with
  /// `secret`, echo is off while it is typed and restored on every way out. Echo goes off before
  /// the prompt appears, so nothing typed after the prompt is echoed or thrown away.
  func readLine(secret: Bool, prompt: String) async -> LineRead {
    waitingForSecret = true
    defer { waitingForSecret = false }
    guard console.interactive else { return await input.nextLine() }
    if secret { TerminalEcho.disable() }
    defer { if secret { TerminalEcho.restore() } }
    console.writeError(prompt)
    return await input.nextLine()
  }
}
