extension String {
  /// The text with everything a terminal would act on removed: escape sequences cannot reach the
  /// terminal from a server's answer. Control characters are dropped, tabs become spaces; line
  /// breaks stay.
  public var terminalSafe: String {
    var out = String.UnicodeScalarView()
    for scalar in unicodeScalars {
      switch scalar.value {
      case 0x0A: out.append(scalar)
      case 0x09: out.append(" ")
      case 0..<0x20, 0x7F..<0xA0: continue
      // Bidirectional overrides and isolates could make text display differently from what it is.
      case 0x202A...0x202E, 0x2066...0x2069: continue
      default: out.append(scalar)
      }
    }
    return String(out)
  }

  /// The text on one line: terminal-safe, every run of whitespace (line breaks included) turned
  /// into one space, trimmed.
  public var singleLine: String {
    var out = ""
    var pendingSpace = false
    for character in terminalSafe {
      if character.isWhitespace {
        pendingSpace = !out.isEmpty
        continue
      }
      if pendingSpace { out.append(" ") }
      pendingSpace = false
      out.append(character)
    }
    return out
  }
}

extension String {
  /// The text as it may reach a terminal, whoever wrote it: the sequences susi's own output uses
  /// pass (colours and styles, `ESC [ … m`; erasing to the end of the line, `ESC [ K`; moving
  /// right, `ESC [ n C`), and so do line breaks, carriage returns and tabs. Every other escape
  /// sequence (window titles, clipboard writes, clearing the screen, device queries) and every
  /// other control character is removed. Standard output and standard error pass all text
  /// through this, so text from a server, a skill or a log cannot act on the terminal even where
  /// a renderer forgot `terminalSafe`.
  public var terminalOutput: String {
    if !unicodeScalars.contains(where: { Self.needsFiltering($0) }) { return self }
    var out = String.UnicodeScalarView()
    let scalars = Array(unicodeScalars)
    var index = 0
    while index < scalars.count {
      let scalar = scalars[index]
      index += 1
      guard Self.needsFiltering(scalar) else {
        out.append(scalar)
        continue
      }
      switch scalar.value {
      case 0x0A, 0x0D, 0x09: out.append(scalar)
      case 0x1B: index = Self.skipOrKeepEscape(scalars, from: index, into: &out)
      default: continue
      }
    }
    return String(out)
  }

  private static func needsFiltering(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0..<0x20, 0x7F..<0xA0, 0x202A...0x202E, 0x2066...0x2069: return true
    default: return false
    }
  }

  /// After an ESC at `start - 1`: appends the sequence when it is one susi writes itself, and
  /// returns the index after the sequence either way.
  private static func skipOrKeepEscape(
    _ scalars: [Unicode.Scalar], from start: Int, into out: inout String.UnicodeScalarView
  ) -> Int {
    guard start < scalars.count else { return start }
    switch scalars[start] {
    case "[":
      // CSI: parameter bytes 0x30–0x3F, intermediate bytes 0x20–0x2F, one final byte 0x40–0x7E.
      var index = start + 1
      var parameters = String.UnicodeScalarView()
      while index < scalars.count, (0x20...0x3F).contains(scalars[index].value) {
        parameters.append(scalars[index])
        index += 1
      }
      guard index < scalars.count, (0x40...0x7E).contains(scalars[index].value) else {
        return index
      }
      let final = scalars[index]
      let plain = parameters.allSatisfy { ("0"..."9").contains($0) || $0 == ";" }
      if plain && (final == "m" || final == "K" || (final == "C" && !parameters.contains(";"))) {
        out.append("\u{1B}")
        out.append("[")
        out.append(contentsOf: parameters)
        out.append(final)
      }
      return index + 1
    case "]", "P", "_", "^", "X":
      // A string sequence (OSC, DCS, APC, PM, SOS): ends at BEL or at ESC \.
      var index = start + 1
      while index < scalars.count {
        if scalars[index] == "\u{07}" { return index + 1 }
        if scalars[index] == "\u{1B}" {
          return index + 1 < scalars.count && scalars[index + 1] == "\\" ? index + 2 : index + 1
        }
        index += 1
      }
      return index
    default:
      // A two-character sequence such as ESC c (reset the terminal).
      return start + 1
    }
  }
}
