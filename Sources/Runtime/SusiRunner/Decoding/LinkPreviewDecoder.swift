import SusiCore
import SusiHTTPClient

/// Reads what a page says about itself: Open Graph (`og:title`, `og:description`,
/// `og:image`), Twitter cards, `<title>` and `<meta name="description">`.
///
/// A forgiving scanner, not an HTML parser: attribute order and quoting vary, comments,
/// scripts and styles are skipped, entities are decoded and relative image URLs resolved
/// against the page.
enum LinkPreviewDecoder {
  struct Preview: Equatable {
    var title: String?
    var description: String?
    var image: String?
  }

  static func preview(_ bytes: [UInt8], headerCharset: String?, pageURL: String) -> Preview {
    let charset = headerCharset ?? TextDecoding.declaredCharset(bytes)
    let text = TextDecoding.decode(bytes, charset: charset)
    let page = scan(Array(text.utf8))
    func clean(_ value: String?, limit: Int) -> String? {
      guard let value else { return nil }
      let text = HTMLText.collapseWhitespace(HTMLText.decodeEntities(value))
      return text.isEmpty ? nil : String(text.prefix(limit))
    }
    let title =
      clean(page.meta["og:title"], limit: 300)
      ?? clean(page.meta["twitter:title"], limit: 300) ?? clean(page.title, limit: 300)
    let description =
      clean(page.meta["og:description"], limit: 1000)
      ?? clean(page.meta["twitter:description"], limit: 1000)
      ?? clean(page.meta["description"], limit: 1000)
    let image = [
      page.meta["og:image"], page.meta["og:image:url"], page.meta["og:image:secure_url"],
      page.meta["twitter:image"],
    ].lazy.compactMap { $0 }.compactMap {
      URLResolver.resolve(HTMLText.decodeEntities($0), against: pageURL)
    }.first
    return Preview(title: title, description: description, image: image)
  }

  /// What the scanner collects: `<meta>` contents by `property`/`name` (lower-cased, first
  /// wins) and the first `<title>`'s raw text.
  private struct Page {
    var meta: [String: String] = [:]
    var title: String?
  }

  private static func scan(_ b: [UInt8]) -> Page {
    var page = Page()
    var i = 0
    let n = b.count
    while i < n {
      guard b[i] == UInt8(ascii: "<") else {
        i += 1
        continue
      }
      if matches(b, i, "<!--") {
        i = find(b, from: i + 4, "-->").map { $0 + 3 } ?? n
        continue
      }
      var j = i + 1
      while j < n, isNameByte(b[j]) { j += 1 }
      let name = lowered(b[(i + 1)..<j])
      switch name {
      case "meta":
        let (attributes, end) = readAttributes(b, from: j)
        i = end
        let key = (attributes["property"] ?? attributes["name"])?.lowercased()
        if let key, let content = attributes["content"], page.meta[key] == nil {
          page.meta[key] = content
        }
      case "title":
        let (_, end) = readAttributes(b, from: j)
        // A title cut off by the size limit is not worth showing.
        guard let close = findInsensitive(b, from: end, "</title") else { return page }
        if page.title == nil {
          page.title = String(decoding: b[min(end, close)..<close], as: UTF8.self)
        }
        i = close
      case "script", "style":
        let (_, end) = readAttributes(b, from: j)
        i = findInsensitive(b, from: end, "</\(name)") ?? n
      default:
        i = j
      }
    }
    return page
  }

  /// Reads `name="value" name='value' name=value name` up to `>`; returns the attributes
  /// (names lower-cased, first wins) and the index after `>`.
  private static func readAttributes(_ b: [UInt8], from start: Int) -> ([String: String], Int) {
    var attributes: [String: String] = [:]
    var i = start
    let n = b.count
    while i < n {
      while i < n, isSpace(b[i]) || b[i] == UInt8(ascii: "/") { i += 1 }
      guard i < n else { break }
      if b[i] == UInt8(ascii: ">") { return (attributes, i + 1) }
      let nameStart = i
      while i < n, !isSpace(b[i]), b[i] != UInt8(ascii: "="), b[i] != UInt8(ascii: ">"),
        b[i] != UInt8(ascii: "/")
      {
        i += 1
      }
      let name = lowered(b[nameStart..<i])
      while i < n, isSpace(b[i]) { i += 1 }
      var value = ""
      if i < n, b[i] == UInt8(ascii: "=") {
        i += 1
        while i < n, isSpace(b[i]) { i += 1 }
        if i < n, b[i] == UInt8(ascii: "\"") || b[i] == UInt8(ascii: "'") {
          let quote = b[i]
          let valueStart = i + 1
          i = valueStart
          while i < n, b[i] != quote { i += 1 }
          value = String(decoding: b[valueStart..<i], as: UTF8.self)
          if i < n { i += 1 }
        } else {
          let valueStart = i
          while i < n, !isSpace(b[i]), b[i] != UInt8(ascii: ">") { i += 1 }
          value = String(decoding: b[valueStart..<i], as: UTF8.self)
        }
      }
      if !name.isEmpty, attributes[name] == nil { attributes[name] = value }
    }
    return (attributes, n)
  }

  private static func isSpace(_ c: UInt8) -> Bool {
    c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == 0x0C
  }

  private static func isNameByte(_ c: UInt8) -> Bool {
    (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) || (0x30...0x39).contains(c)
      || c == UInt8(ascii: "-") || c == UInt8(ascii: ":")
  }

  private static func lowered(_ bytes: ArraySlice<UInt8>) -> String {
    String(decoding: bytes.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
  }

  private static func matches(_ b: [UInt8], _ at: Int, _ text: String) -> Bool {
    let pattern = Array(text.utf8)
    return at + pattern.count <= b.count && b[at..<(at + pattern.count)].elementsEqual(pattern)
  }

  private static func find(_ b: [UInt8], from start: Int, _ text: String) -> Int? {
    let pattern = Array(text.utf8)
    guard let first = pattern.first, start < b.count else { return nil }
    var i = start
    while i + pattern.count <= b.count {
      if b[i] == first, b[i..<(i + pattern.count)].elementsEqual(pattern) { return i }
      i += 1
    }
    return nil
  }

  private static func findInsensitive(_ b: [UInt8], from start: Int, _ text: String) -> Int? {
    let pattern = Array(text.lowercased().utf8)
    guard start < b.count else { return nil }
    var i = start
    while i + pattern.count <= b.count {
      var matched = true
      for k in 0..<pattern.count {
        let c = b[i + k]
        if ((0x41...0x5A).contains(c) ? c + 0x20 : c) != pattern[k] {
          matched = false
          break
        }
      }
      if matched { return i }
      i += 1
    }
    return nil
  }
}
