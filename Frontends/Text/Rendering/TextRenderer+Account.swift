import SusiCommandLine
public import SusiCore
import SusiTerminal

extension TextRenderer {
  /// Settings as aligned `key  value` lines, in the server's key order (unknown keys last,
  /// sorted).
  public func settings(_ settings: [String: SettingValue]) -> String {
    let order = Dictionary(
      uniqueKeysWithValues: SettingKey.allowed.enumerated().map { ($1.key, $0) })
    let keys = settings.keys.sorted { (order[$0] ?? .max, $0) < (order[$1] ?? .max, $1) }
    let rows = keys.map { [$0, settings[$0]?.serverText ?? ""] }
    return table(TextTable(rows: rows, alignments: [.left, .left]))
  }

  /// The server's memory of past chats, oldest first: each query with its date, then the answer.
  public func history(_ entries: [HistoryEntry]) -> String {
    var blocks: [String] = []
    for entry in entries.reversed() {
      let date = entry.queryDate.map { style.dim(dateText($0)) + "  " } ?? ""
      let answer = entry.answers.isEmpty ? notice("no answer") : self.answer(entry.answers)
      blocks.append(date + style.bold("> " + entry.query.singleLine) + "\n" + answer)
    }
    return blocks.joined(separator: "\n\n")
  }
}
