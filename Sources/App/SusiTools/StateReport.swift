import SusiCommandLine
import SusiCore
import SusiJSON
import SusiStore

/// The final state of a replay, for a person: what a client would show, section by section.
enum StateReport {
  /// How many chat lines to show before summarising the rest.
  static let transcriptTail = 20

  static func render(_ recovered: Recovered, path: String) -> String {
    let state = recovered.state
    var out = "Log \(path): \(recovered.lastSeq) events"
    if let last = recovered.lastAt { out += ", the last at \(last.rfc3339)" }
    out += "\n\n"
    /// A section's line: its label in a column of its own.
    func row(_ label: String, _ text: String) {
      out += label + String(repeating: " ", count: 13 - label.count) + text + "\n"
    }
    row("Server", state.server == State.embeddedServer ? "the built-in server" : state.server)
    if let session = state.session {
      var line = "\(session.email) since \(session.since.rfc3339)"
      if let expiry = session.expiresAt { line += ", token valid until \(expiry.rfc3339)" }
      row("Logged in", line)
    } else {
      row("Logged in", "nobody")
    }
    let settings = state.settings.keys.sorted().map { "\($0)=\(state.settings[$0]!)" }
    row("Settings", settings.isEmpty ? "none synced" : settings.joined(separator: ", "))
    let skillCount = state.skills.values.reduce(0) { $0 + $1.count }
    row(
      "Groups",
      "\(state.groups.count)" + (state.groups.isEmpty ? "" : ": ")
        + state.groups.joined(separator: ", "))
    row("Skills", "\(skillCount) loaded in \(state.skills.count) groups")
    for group in state.skills.keys.sorted() {
      let skills = state.skills[group]!.values.sorted { $0.displayName < $1.displayName }
      out +=
        "  \(group): "
        + skills.map { skill in
          guard let rating = skill.rating, rating.total > 0 else { return skill.displayName }
          return
            "\(skill.displayName) (\(NumberText.trimmed(rating.average, maximumDecimals: 2))★ × \(rating.total))"
        }.joined(separator: ", ") + "\n"
    }
    if !state.userRatings.isEmpty {
      row(
        "Your ratings",
        state.userRatings.keys.sorted().map { id in
          "\(id.skill) " + (state.userRatings[id]!.stars.map { "\($0)★" } ?? "not rated")
        }.joined(separator: ", "))
    }
    out += "\n"
    row(
      "Chat",
      "\(state.transcript.count) lines"
        + (state.transcript.count > transcriptTail ? " (the last \(transcriptTail) below)" : ""))
    for entry in state.transcript.suffix(transcriptTail) {
      let time = String(entry.at.rfc3339.dropFirst(11).prefix(8))
      if entry.speaker == .user {
        out += "  \(time) you:  \(entry.query)\n"
      } else {
        out += "  \(time) susi: " + entry.answers.map(summary).joined(separator: " · ") + "\n"
      }
    }
    if !state.history.isEmpty || state.historyRemaining != nil {
      var line = "\(state.history.count) remembered exchanges"
      if let remaining = state.historyRemaining, remaining > 0 {
        line += ", \(remaining) older on the server"
      }
      row("History", line)
    }
    func list<Value>(_ label: String, _ items: [String: Value], _ item: (String, Value) -> String) {
      guard !items.isEmpty else { return }
      row(label, items.keys.sorted().map { item($0, items[$0]!) }.joined(separator: ", "))
    }
    list("Searches", state.searches) { "\"\($0)\" (\($1.count))" }
    list("Previews", state.linkPreviews) { key, _ in key }
    if !state.images.isEmpty {
      let bytes = state.images.values.reduce(0) { $0 + $1.bytes }
      row("Images", "\(state.images.count) cached, \(bytes) bytes")
    }
    if !state.inFlight.isEmpty {
      let requests = state.inFlight.keys.sorted().map { "#\($0) \(state.inFlight[$0]!.type)" }
      row("In flight", requests.joined(separator: ", "))
    }
    if !state.lastErrors.isEmpty {
      out += "Last errors\n"
      for type in state.lastErrors.keys.sorted() {
        out += "  \(type): \(state.lastErrors[type]!)\n"
      }
    }
    return out
  }

  /// One answer action in a few words.
  static func summary(_ action: AnswerAction) -> String {
    switch action {
    case .answer(let expression, _, _): expression
    case .table(let columns, let rows): "[table \(rows.count)×\(columns.count)]"
    case .rss(let items): "[\(items.count) feed items]"
    case .websearch(let query, _): "[web search: \(query)]"
    case .anchor(let link, let text): "\(text) <\(link)>"
    case .map(let latitude, let longitude, _): "[map \(latitude), \(longitude)]"
    case .piechart(let slices, _): "[pie chart, \(slices.count) slices]"
    case .videoPlay(let identifier, _): "[video \(identifier)]"
    case .audioPlay(let identifier, _): "[audio \(identifier)]"
    case .audioVolume(let volume): "[volume \(volume)]"
    case .imageShow(let url): "[image \(url)]"
    case .timerSet(let time): "[timer \(time)]"
    case .control(let control): "[\(control.rawValue)]"
    case .unknown(let type, _): "[\(type)]"
    }
  }
}
