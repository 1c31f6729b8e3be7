import Foundation

/// Showing an image inside the terminal, on terminals that say they can: the kitty graphics
/// protocol, or iTerm2's inline images (which WezTerm speaks too). Detected from what the
/// terminal sets in the environment, never guessed; never in a pipe, with `NO_COLOR` or with
/// `TERM=dumb`.
public enum TerminalImage: Equatable, Sendable {
  case kitty
  case iTerm2

  /// The protocol the terminal on standard output speaks, if any.
  public static func detect(isTerminal: Bool, environment: [String: String]) -> TerminalImage? {
    guard isTerminal, environment["TERM"] != "dumb" else { return nil }
    if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return nil }
    if environment["TERM"] == "xterm-kitty" || environment["KITTY_WINDOW_ID"] != nil {
      return .kitty
    }
    if ["iTerm.app", "WezTerm"].contains(environment["TERM_PROGRAM"]) { return .iTerm2 }
    return nil
  }

  /// The escape sequence that draws `image` (a file's bytes) at the cursor, or nil when this
  /// protocol cannot show it (kitty is given PNG files only).
  public func escape(for image: [UInt8], name: String) -> String? {
    switch self {
    case .kitty:
      guard image.starts(with: Self.pngSignature) else { return nil }
      // The payload goes in chunks of at most 4096 base64 bytes; m=1 says more follow.
      let payload = Data(image).base64EncodedString()
      var chunks: [Substring] = []
      var rest = payload[...]
      while !rest.isEmpty {
        chunks.append(rest.prefix(4096))
        rest = rest.dropFirst(4096)
      }
      var out = ""
      for (index, chunk) in chunks.enumerated() {
        let more = index < chunks.count - 1 ? 1 : 0
        let keys = index == 0 ? "a=T,f=100,m=\(more)" : "m=\(more)"
        out += "\u{1B}_G\(keys);\(chunk)\u{1B}\\"
      }
      return out
    case .iTerm2:
      let encodedName = Data(name.utf8).base64EncodedString()
      return "\u{1B}]1337;File=name=\(encodedName);size=\(image.count);inline=1:"
        + Data(image).base64EncodedString() + "\u{07}"
    }
  }

  static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
}
