import Foundation
import SusiHTTPTypes

/// Small, forgiving helpers for reading text out of HTML: error pages, search snippets and
/// page metadata. Not a full parser: they never fail, and unknown constructs pass through.
enum HTMLText {
  /// Replaces character references (`&amp;`, `&#39;`, `&#x27;`, and common named ones) with
  /// the characters they stand for; unknown references stay as they are.
  static func decodeEntities(_ text: String) -> String {
    guard text.contains("&") else { return text }
    var out = ""
    out.reserveCapacity(text.utf8.count)
    var rest = Substring(text)
    while let amp = rest.firstIndex(of: "&") {
      out += rest[..<amp]
      let afterAmp = rest.index(after: amp)
      let window = rest[afterAmp...].prefix(12)
      if let semicolon = window.firstIndex(of: ";"),
        let character = character(for: rest[afterAmp..<semicolon])
      {
        out.unicodeScalars.append(character)
        rest = rest[rest.index(after: semicolon)...]
      } else {
        out += "&"
        rest = rest[afterAmp...]
      }
    }
    out += rest
    return out
  }

  private static let named: [String: Unicode.Scalar] = [
    "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}",
    "hellip": "\u{2026}", "mdash": "\u{2014}", "ndash": "\u{2013}", "lsquo": "\u{2018}",
    "rsquo": "\u{2019}", "ldquo": "\u{201C}", "rdquo": "\u{201D}", "laquo": "\u{AB}",
    "raquo": "\u{BB}", "copy": "\u{A9}", "reg": "\u{AE}", "trade": "\u{2122}", "middot": "\u{B7}",
    "bull": "\u{2022}", "euro": "\u{20AC}", "eacute": "\u{E9}", "auml": "\u{E4}",
    "ouml": "\u{F6}", "uuml": "\u{FC}", "szlig": "\u{DF}",
  ]

  private static func character(for reference: Substring) -> Unicode.Scalar? {
    if reference.hasPrefix("#x") || reference.hasPrefix("#X") {
      return UInt32(reference.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
    }
    if reference.hasPrefix("#") {
      return UInt32(reference.dropFirst(), radix: 10).flatMap(Unicode.Scalar.init)
    }
    return named[String(reference)] ?? named[String(reference).lowercased()]
  }

  /// The text of an HTML fragment: tags removed, entities decoded, runs of whitespace folded
  /// into one space, trimmed.
  static func plainText(_ html: String) -> String {
    var out = ""
    var inTag = false
    for scalar in html.unicodeScalars {
      if inTag {
        if scalar == ">" { inTag = false }
      } else if scalar == "<" {
        inTag = true
      } else {
        out.unicodeScalars.append(scalar)
      }
    }
    return collapseWhitespace(decodeEntities(out))
  }

  /// `text` with every run of whitespace turned into one space, trimmed.
  static func collapseWhitespace(_ text: String) -> String {
    var out = ""
    var pendingSpace = false
    for scalar in text.unicodeScalars {
      if scalar.properties.isWhitespace {
        pendingSpace = !out.isEmpty
      } else {
        if pendingSpace { out.unicodeScalars.append(" ") }
        pendingSpace = false
        out.unicodeScalars.append(scalar)
      }
    }
    return out
  }

  /// The raw contents of the first `<name …>…</name>` element (case-insensitive), or nil.
  static func firstElement(_ name: String, in html: String) -> Substring? {
    let lower = asciiLowercased(html)
    guard let open = lower.range(of: "<\(name)"),
      let openEnd = lower[open.upperBound...].firstIndex(of: ">"),
      let close = lower[openEnd...].range(of: "</\(name)")
    else { return nil }
    // Only ASCII letters changed, so UTF-8 offsets carry over from `lower` to `html`.
    let start = lower.utf8.distance(from: lower.startIndex, to: lower.index(after: openEnd))
    let end = lower.utf8.distance(from: lower.startIndex, to: close.lowerBound)
    let utf8 = html.utf8
    return Substring(
      html[
        utf8.index(utf8.startIndex, offsetBy: start)..<utf8.index(utf8.startIndex, offsetBy: end)]
    )
  }

  /// `text` with ASCII capitals lowered and every other byte kept, so offsets stay valid.
  static func asciiLowercased(_ text: String) -> String {
    String(decoding: text.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
  }

  /// The message of a server's HTML error page: the `<title>` without a leading
  /// `Error 422` (Jetty writes `<title>Error 422 Rating not provided.</title>`), else the
  /// text after `Reason:`; nil when the page says nothing useful.
  static func errorMessage(_ html: String) -> String? {
    if let title = firstElement("title", in: html) {
      var text = plainText(String(title))
      if text.lowercased().hasPrefix("error ") { text = String(text.dropFirst(6)) }
      let digits = text.prefix(while: { $0.isASCII && $0.isNumber })
      if digits.count == 3 { text = String(text.dropFirst(3)).trimmingSpaces() }
      if !text.isEmpty { return String(text.prefix(300)) }
    }
    if let pre = firstElement("pre", in: html) {
      let text = plainText(String(pre))
      if !text.isEmpty { return String(text.prefix(300)) }
    }
    return nil
  }
}
