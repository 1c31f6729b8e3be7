import Foundation
import SusiCommandLine
import SusiCore
import SusiTerminal

// Chat, web search, link previews and the server's memory.

extension TextSession {
  func ask(_ query: String) async throws(Outcome) {
    let (message, at) = try await result(
      of: .sendMessage(Action.SendMessage(query: query)), doing: "asking SUSI"
    ) { if case .messageReceived(let message) = $0.action { (message, $0.at) } else { nil } }
    let outcome = await show(message)
    notePlanned(message, answeredAt: at)
    if outcome != .ok { throw outcome }
  }

  /// Prints an answer; each web-search action in it is then searched and its results printed
  /// under it.
  func show(_ message: Action.MessageReceived) async -> Outcome {
    guard !message.answers.isEmpty else {
      console.print(renderer.style.dim("(SUSI gave no answer)"))
      return .ok
    }
    var outcome = Outcome.ok
    var pending: [AnswerAction] = []
    for action in message.answers {
      guard case .websearch(let query, let count) = action else {
        pending.append(action)
        continue
      }
      console.print(renderer.answer(pending))
      pending = []
      console.print(renderer.action(action))
      do { try await search(query, count: count) } catch { outcome = error }
    }
    console.print(renderer.answer(pending))
    for case .imageShow(let url) in message.answers { await showImage(url) }
    return outcome
  }

  /// Caches the image at `url` (the image cache keeps it across runs) and prints the cached
  /// file's path, and the image itself on a terminal that can show one. A failure is reported
  /// and does not fail the command: the answer was shown.
  func showImage(_ url: String) async {
    guard
      let cached = try? await result(
        of: .cacheImage(Action.CacheImage(url: url)), doing: "caching the image",
        progress: "Fetching the image\(renderer.glyphs.ellipsis)", fromServer: false,
        { if case .imageCached(let cached) = $0.action { cached } else { nil } })
    else { return }
    console.print("Image file: " + renderer.style.cyan(cached.path.singleLine))
    if let images = console.images,
      let bytes = FileManager.default.contents(atPath: cached.path),
      let escape = images.escape(
        for: Array(bytes), name: (cached.path as NSString).lastPathComponent)
    {
      console.writeImage(escape + "\n")
    }
  }

  /// Searches the web and prints the results as numbered cards (at most `count`).
  func search(_ text: String, count: Int?) async throws(Outcome) {
    let loaded = try await result(
      of: .search(Action.Search(query: text)), doing: "the web search", fromServer: false
    ) { if case .websearchLoaded(let loaded) = $0.action { loaded } else { nil } }
    var results = loaded.results
    if let count, count >= 0 { results = Array(results.prefix(count)) }
    console.print(
      results.isEmpty
        ? "No web results for \"\(loaded.query.singleLine)\"."
        : renderer.cards(results.map(Card.init)))
  }

  func preview(_ url: String) async throws(Outcome) {
    let loaded = try await result(
      of: .loadLinkPreview(Action.LoadLinkPreview(url: url)), doing: "the link preview",
      fromServer: false
    ) { if case .linkPreviewLoaded(let loaded) = $0.action { loaded } else { nil } }
    let preview = LinkPreview(
      url: loaded.url, title: loaded.title, description: loaded.description, image: loaded.image)
    console.print(renderer.linkPreview(preview))
  }

  /// Loads the next page of the server's memory of this user's chats and prints it.
  func history() async throws(Outcome) {
    let loaded = try await result(
      of: .loadHistory(Action.LoadHistory()), doing: "loading the chat history"
    ) { if case .historyLoaded(let loaded) = $0.action { loaded } else { nil } }
    console.print(
      loaded.entries.isEmpty
        ? "The server remembers no chats yet." : renderer.history(loaded.entries))
    if loaded.remaining > 0 {
      console.print(
        renderer.style.dim(
          "\(NumberText.counted(loaded.remaining, "older exchange")) on the server: "
            + "\(command("/history", "susi history")) again shows them"))
    }
  }
}

extension TextCommands {
  /// The command that asks SUSI.
  static let asking: [TextCommandRow] = [
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
    ) { try await $0.ask($1.text ?? "") }
  ]
}

extension TextCommands {
  /// The web search, link previews and the server's memory, in the order `/help` lists them.
  static let lookupCommands: [TextCommandRow] = [
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
  ]
}
