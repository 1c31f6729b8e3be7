import Foundation
import SusiCommandLine
import SusiCore
import SusiTerminal

// Chat, web search, link previews and the server's memory.

extension TextSession {
  func ask(_ query: String) async -> Outcome {
    guard let result = await request(.sendMessage(Action.SendMessage(query: query))) else {
      return .failed
    }
    if let failed = failure(result, doing: "asking SUSI") { return failed }
    guard case .messageReceived(let message) = result.action else {
      return unexpected(result, doing: "asking SUSI")
    }
    let outcome = await show(message)
    notePlanned(message, answeredAt: result.at)
    return outcome
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
      let searched = await search(query, count: count)
      if searched != .ok { outcome = searched }
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
      let result = await request(
        .cacheImage(Action.CacheImage(url: url)),
        progress: "Fetching the image\(renderer.glyphs.ellipsis)")
    else { return }
    guard case .imageCached(let cached) = result.action else {
      _ = failure(result, doing: "caching the image", fromServer: false)
      return
    }
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
  func search(_ text: String, count: Int?) async -> Outcome {
    guard let result = await request(.search(Action.Search(query: text))) else { return .failed }
    if let failed = failure(result, doing: "the web search", fromServer: false) { return failed }
    guard case .websearchLoaded(let loaded) = result.action else {
      return unexpected(result, doing: "the web search")
    }
    var results = loaded.results
    if let count, count >= 0 { results = Array(results.prefix(count)) }
    if results.isEmpty {
      console.print("No web results for \"\(loaded.query.singleLine)\".")
    } else {
      console.print(renderer.cards(results.map(Card.init)))
    }
    return .ok
  }

  func preview(_ url: String) async -> Outcome {
    guard let result = await request(.loadLinkPreview(Action.LoadLinkPreview(url: url))) else {
      return .failed
    }
    if let failed = failure(result, doing: "the link preview", fromServer: false) { return failed }
    guard case .linkPreviewLoaded(let loaded) = result.action else {
      return unexpected(result, doing: "the link preview")
    }
    console.print(
      renderer.linkPreview(
        LinkPreview(
          url: loaded.url, title: loaded.title, description: loaded.description, image: loaded.image
        )))
    return .ok
  }

  /// Loads the next page of the server's memory of this user's chats and prints it.
  func history() async -> Outcome {
    guard let result = await request(.loadHistory(Action.LoadHistory())) else { return .failed }
    if let failed = failure(result, doing: "loading the chat history") { return failed }
    guard case .historyLoaded(let loaded) = result.action else {
      return unexpected(result, doing: "loading the chat history")
    }
    if loaded.entries.isEmpty {
      console.print("The server remembers no chats yet.")
    } else {
      console.print(renderer.history(loaded.entries))
    }
    if loaded.remaining > 0 {
      console.print(
        renderer.style.dim(
          "\(loaded.remaining) older exchange\(loaded.remaining == 1 ? "" : "s") on the server: "
            + "\(command("/history", "susi history")) again shows them"))
    }
    return .ok
  }
}
