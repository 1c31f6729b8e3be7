import SusiCommandLine
public import SusiCore
import SusiTerminal

extension TextRenderer {
  /// A skill's page: name, where it lives and who wrote it, what it does, its rating with the
  /// 5→1 chart, the user's own rating when known, examples with a "try it" hint, and links.
  /// `inChat` shows the hint as it is typed at the chat prompt (the question itself).
  public func skill(_ skill: Skill, userStars: Int? = nil, inChat: Bool = false) -> String {
    var lines: [String] = [style.bold(fit(skill.displayName.singleLine))]
    var facts = [skill.group.singleLine, skill.language.singleLine]
    if let author = skill.author?.singleLine, !author.isEmpty {
      var by = "by \(author)"
      if let url = skill.authorURL?.singleLine, !url.isEmpty { by += " <\(url)>" }
      facts.append(by)
    }
    lines.append(style.dim(facts.joined(separator: " \(glyphs.middleDot) ")))
    if let description = skill.description?.singleLine, !description.isEmpty {
      lines.append(contentsOf: wrap(description, lines: 6))
    }
    lines += ["", "Rating: " + ratingSummary(skill.rating)]
    if let rating = skill.rating, Self.ratingCount(rating) != nil {
      lines.append(contentsOf: ratingChart(rating).split(separator: "\n").map { "  " + $0 })
    }
    if let userStars { lines.append("Your rating: " + self.userStars(userStars)) }
    let examples = skill.examples.map(\.singleLine).filter { !$0.isEmpty }
    if !examples.isEmpty {
      lines += ["", "Examples:"]
      for example in examples { lines.append("  \(glyphs.bullet) " + fit(example, width - 4)) }
      let hint = inChat ? examples[0] : "susi ask \(ShellQuote.quote(examples[0]))"
      lines.append("Try it: " + style.cyan(hint))
    }
    var links: [(String, String)] = []
    if let image = skill.imageURL ?? skill.image { links.append(("Image", image)) }
    if let terms = skill.termsOfUse { links.append(("Terms of use", terms)) }
    if let policy = skill.developerPrivacyPolicy { links.append(("Privacy policy", policy)) }
    let shown = links.map { ($0.0, $0.1.singleLine) }.filter { !$0.1.isEmpty }
    if !shown.isEmpty {
      lines.append("")
      for (label, link) in shown { lines.append("\(label): " + style.cyan(link)) }
    }
    return Self.join(lines)
  }

  /// Skills under their group names, groups and skills sorted by name, each skill with its
  /// rating and a one-line description cut to the terminal's width.
  public func skillList(_ skills: [Skill]) -> String {
    let byGroup = Dictionary(grouping: skills, by: \.group)
    var blocks: [String] = []
    for group in byGroup.keys.sorted(by: Self.byName) {
      let members = (byGroup[group] ?? []).sorted { Self.byName($0.displayName, $1.displayName) }
      let rows = members.map { skill -> [String] in
        let rating =
          skill.rating.flatMap { Self.ratingCount($0) == nil ? nil : stars(Self.average($0)) } ?? ""
        return [skill.displayName, rating, skill.description ?? ""]
      }
      let heading = style.bold(group.singleLine) + " (\(members.count))"
      blocks.append(
        heading + "\n" + table(TextTable(rows: rows, alignments: [.left, .left, .left], indent: 2)))
    }
    return blocks.joined(separator: "\n\n")
  }

  /// Skill groups, one per line, in the order given.
  public func groupList(_ groups: [String]) -> String {
    Self.join(groups.map { fit($0.singleLine) })
  }

  /// Case-insensitive order for names, ties broken by the exact text.
  static func byName(_ a: String, _ b: String) -> Bool {
    let (la, lb) = (a.lowercased(), b.lowercased())
    return la == lb ? a < b : la < lb
  }
}
