import SusiCommandLine
public import SusiCore
import SusiTerminal

/// One result of a feed or a web search, with any field possibly missing: a feed item's fields.
public typealias Card = FeedItem

extension FeedItem {
  public init(_ result: SearchResult) {
    self.init(title: result.title, description: result.description, link: result.link)
  }
}

extension TextRenderer {
  /// Numbered cards: the title, a one-line description and the link, each on its own line.
  /// A card without a title is headed by its description or link instead, so no line is empty
  /// and nothing is shown twice.
  public func cards(_ cards: [Card]) -> String {
    let numberWidth = String(cards.count).count + 1
    let indent = String(repeating: " ", count: numberWidth + 1)
    var lines: [String] = []
    for (index, card) in cards.enumerated() {
      var title = card.title?.singleLine ?? ""
      var description = card.description?.singleLine ?? ""
      var link = card.link?.singleLine ?? ""
      if title.isEmpty {
        if !description.isEmpty {
          swap(&title, &description)
        } else if !link.isEmpty {
          swap(&title, &link)
        } else {
          title = "(no title)"
        }
      }
      if description == title { description = "" }
      let number = "\(index + 1).".padded(toWidth: numberWidth, alignRight: true)
      lines.append(number + " " + style.bold(fit(title, width - numberWidth - 1)))
      if !description.isEmpty { lines.append(indent + fit(description, width - indent.count)) }
      if !link.isEmpty { lines.append(indent + style.cyan(link)) }
    }
    return Self.join(lines)
  }

  /// A page's preview: title, up to two lines of description, the image and the address.
  public func linkPreview(_ preview: LinkPreview) -> String {
    let title = preview.title?.singleLine ?? ""
    var lines = [style.bold(fit(title.isEmpty ? "(no title)" : title))]
    if let description = preview.description?.singleLine, !description.isEmpty {
      lines.append(contentsOf: wrap(description, lines: 2))
    }
    if let image = preview.image?.singleLine, !image.isEmpty {
      lines.append("Image: " + style.cyan(image))
    }
    lines.append(style.cyan(preview.url.singleLine))
    return Self.join(lines)
  }

  /// `text` broken at spaces into lines of the full width, at most `maximum` of them; the last
  /// one ends in an ellipsis when text remains.
  func wrap(_ text: String, lines maximum: Int) -> [String] {
    var lines: [String] = []
    var current = ""
    for word in text.split(separator: " ") {
      let candidate = current.isEmpty ? String(word) : current + " " + word
      if candidate.displayWidth > width, !current.isEmpty {
        lines.append(current)
        current = String(word)
      } else {
        current = candidate
      }
    }
    if !current.isEmpty { lines.append(current) }
    guard maximum > 0, lines.count > maximum else { return lines.map { fit($0) } }
    let rest = lines[(maximum - 1)...].joined(separator: " ")
    return lines.prefix(maximum - 1).map { fit($0) } + [fit(rest)]
  }
}
