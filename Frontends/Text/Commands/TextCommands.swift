import SusiCommandLine
import SusiCore

/// The text frontend's commands, in the order `/help` and `susi --help` list them.
enum TextCommands {
  typealias Shell = TextCommandRow.Shell

  static let all: [TextCommandRow] = [
    TextCommandRow(
      name: "ask", usage: "TEXT...", arguments: .text(needs: "a question"),
      shell: Shell(
        summary: "ask SUSI one question and print the answer",
        discussion: """
          Answers SUSI plans for later (reminders) are not waited for: susi says when each is due
          and exits; the next susi run after that time shows it. --wait waits for them instead.
          """,
        examples: [
          "susi ask what is the capital of france", "susi ask \"flip a coin\"",
          "susi ask --wait \"remind me in 2 minutes to stretch\"",
        ],
        arguments: 1...1000),
      data: [.messageReceived], searchesWeb: true, fetchesPages: true
    ) { try await $0.ask($1.text ?? "") },
    TextCommandRow(
      name: "groups", help: "list the skill groups",
      shell: Shell(examples: ["susi groups"]),
      data: [.groupsLoaded]
    ) { session, _ in try await session.groups() },
    TextCommandRow(
      name: "skills", usage: "[GROUP]", arguments: .text(needs: nil),
      help: "list the skills of a group, or all skills", completes: .groups,
      shell: Shell(
        summary: "list the skills of a group, or every skill",
        discussion:
          "The group name is matched ignoring case. Without a group, every skill is loaded in one request.",
        examples: [
          "susi skills", "susi skills Knowledge",
          "susi skills \"Games, Trivia and Accessories\"",
        ],
        arguments: 0...100),
      data: [.skillsLoaded]
    ) { try await $0.skills(group: $1.text) },
    TextCommandRow(
      name: "skill", usage: "NAME", arguments: .text(needs: "a skill NAME"),
      help: "show a skill: description, examples, ratings", completes: .skills,
      shell: Shell(
        discussion: """
          NAME is the skill's name or tag, ignoring case; GROUP/NAME picks one of several skills
          with the same name. Unknown names are looked up once more after loading every skill.
          """,
        examples: ["susi skill \"Flip a coin\"", "susi skill Knowledge/Capitals"],
        arguments: 1...100),
      data: [.skillLoaded], fetchesPages: true
    ) { try await $0.skill(named: $1.text ?? "") },
    TextCommandRow(
      name: "rate", usage: "NAME STARS", arguments: .rating,
      help: "rate a skill from 1 to 5 stars (logged in)", completes: .skills,
      shell: Shell(
        summary: "rate a skill from 1 to 5 stars (needs a login)",
        examples: ["susi rate \"Flip a coin\" 5"], arguments: 2...100),
      data: [.ratingSubmitted]
    ) { try await $0.rate($1.text ?? "", stars: $1.stars ?? 0) },
    TextCommandRow(
      name: "myrating", usage: "NAME", arguments: .text(needs: "a skill NAME"),
      help: "show your own rating of a skill (logged in)", completes: .skills,
      shell: Shell(
        summary: "show your own rating of a skill (needs a login)",
        examples: ["susi myrating \"Flip a coin\""], arguments: 1...100),
      data: [.userRatingLoaded]
    ) { try await $0.myRating($1.text ?? "") },
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
    TextCommandRow(
      name: "search", usage: "TEXT", arguments: .text(needs: "some TEXT to search for"),
      help: "search the web",
      shell: Shell(
        usage: "search TEXT...",
        examples: ["susi search swift programming language"], arguments: 1...1000),
      data: [.websearchLoaded], searchesWeb: true, fetchesPages: true
    ) { try await $0.search($1.text ?? "", count: nil) },
    TextCommandRow(
      name: "preview", usage: "URL", arguments: .word(required: true, tooMany: "needs one URL"),
      help: "show what a web page says about itself",
      shell: Shell(
        examples: ["susi preview https://www.swift.org"], arguments: 1...1),
      data: [.linkPreviewLoaded], fetchesPages: true
    ) { try await $0.preview($1.text ?? "") },
    TextCommandRow(
      name: "history", help: "show what the server remembers of your chats",
      shell: Shell(examples: ["susi history"]),
      data: [.historyLoaded]
    ) { session, _ in try await session.history() },
    TextCommandRow(
      name: "replay", help: "where this session's event log is and how to replay it"
    ) { session, _ in await session.replayHelp() },
    TextCommandRow(name: "help", aliases: ["?"], help: "this list") { session, _ in
      await session.help()
    },
    TextCommandRow(
      name: "quit", aliases: ["exit", "q"],
      help: "leave (Ctrl-D works too; Ctrl-C cancels a request)"
    ) { _, _ in throw Outcome.quit },
  ]

  /// The commands the chat lists in `/help`.
  static let chat = all.filter { $0.help != nil }

  /// The command called `name` (lowercase) or with that alias.
  static func named(_ name: String) -> TextCommandRow? {
    all.first { $0.name == name || $0.aliases.contains(name) }
  }

  /// Reads a one-shot command's arguments: `settings` also takes `set KEY VALUE` and `sync`.
  static func read(_ row: TextCommandRow, _ words: [String]) throws(UsageError) -> TextCommand {
    guard row.name == "settings", let first = words.first else {
      return try row.arguments.read(row.name, typed: row.name, words)
    }
    switch first {
    case "set": return try TextCommand.make("set", Array(words.dropFirst()))
    case "sync":
      guard words.count == 1 else { throw UsageError("'susi settings sync' takes nothing more") }
      return TextCommand("sync")
    default:
      throw UsageError(
        "'\(first)' is not a settings action; use 'set KEY VALUE' or 'sync'",
        suggestion: Spelling.closest(to: first, in: ["set", "sync"]))
    }
  }

  // MARK: Help for the subcommands (`susi --help`, `susi help CMD`, `susi CMD --help`)

  static let passwordFile = OptionSpec(
    .passwordFile, value: "FILE",
    help:
      "read the password from the first line of FILE (otherwise it is asked for without echo, or read from stdin)"
  )

  static let wait = OptionSpec(
    .wait,
    help:
      "wait for answers planned for later (reminders), with a countdown on a terminal; without it they stay pending for the next start"
  )
  static let json = OptionSpec(
    .json,
    help:
      "print the data (the answer, the list, the settings) as one JSON value; --json=events: "
      + "every event the command logged, in one object (shapes in README)"
  ).accepting(["events"])
  static let utc = OptionSpec(.utc, help: "show times in UTC (TZ=UTC does too)")

  /// One line per setting the server accepts, with what it takes, for `help settings`.
  static let settingKeys = SettingKey.allowed.map { "  \($0.key): \(SettingKey.accepts($0.key))" }
    .joined(separator: "\n")

  static let chatSpec = CommandSpec(
    name: "chat",
    summary: "chat with SUSI; /commands browse skills, rate, change settings (the default)",
    usage: "chat [--password-file FILE]",
    discussion: """
      Plain text is a question for SUSI; lines starting with / are commands (/help lists them).
      With no --server, the built-in server answers, so this works offline. Restarting with the
      same --log resumes the session. Ctrl-C cancels a request; pressed twice it quits.
      When stdin is not a terminal, each line is handled in turn and susi exits at the end of
      the input (exit code 1 when any line failed). Answers planned for later (reminders) are
      shown as they arrive; when the chat ends they stay pending for the next start, unless
      --wait waits for them.
      """,
    examples: [
      "susi", "echo 'flip a coin' | susi chat", "printf '/groups\\n/skills Knowledge\\n' | susi",
    ],
    options: [passwordFile, wait, utc])

  /// A one-shot command's `spec` as susi offers it: with the options every one shares (`--json`,
  /// `--utc`, `--wait` where answers are asked for), refusing the common options it has no use
  /// for.
  static func complete(_ row: TextCommandRow, _ spec: CommandSpec) -> CommandSpec {
    var spec = spec
    if row.name == "ask" { spec.options.append(wait) }
    spec.options += [json, utc]
    if !row.searchesWeb { spec.unusedCommonOptions.append(.websearchURL) }
    if !row.fetchesPages { spec.unusedCommonOptions.append(.allowPrivateTargets) }
    return spec
  }
}
