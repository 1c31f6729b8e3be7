import SusiTerminal
import Testing

/// `terminalOutput`, the filter every text written to standard output and standard error
/// passes: what a hostile server, skill or log may put in a text never acts on the terminal.
@Suite struct TerminalOutputTests {
  @Test(arguments: [
    ("clipboard write", "a\u{1B}]52;c;ZXZpbA==\u{07}b", "ab"),
    ("window title ended by ST", "a\u{1B}]0;owned\u{1B}\\b", "ab"),
    ("clear screen", "a\u{1B}[2Jb", "ab"),
    ("cursor home", "\u{1B}[Hx", "x"),
    ("device status query", "a\u{1B}[6nb", "ab"),
    ("private mode", "a\u{1B}[?1049hb", "ab"),
    ("terminal reset", "a\u{1B}cb", "ab"),
    ("DCS string", "a\u{1B}Pq#0;2;0;0;0\u{1B}\\b", "ab"),
    ("APC (an image protocol)", "a\u{1B}_Gf=100;AAAA\u{1B}\\b", "ab"),
    ("8-bit CSI", "a\u{9B}2Jb", "a2Jb"),
    ("bell, backspace and NUL", "a\u{07}\u{08}\u{00}b", "ab"),
    ("bidirectional override", "a\u{202E}b\u{2066}c", "abc"),
    ("unterminated OSC", "a\u{1B}]52;c;ZXZp", "a"),
    ("lone ESC at the end", "a\u{1B}", "a"),
  ])
  func removesWhatWouldActOnTheTerminal(_ name: String, _ text: String, _ expected: String) {
    #expect(text.terminalOutput == expected, "\(name)")
  }

  @Test func keepsTheSequencesSusiWritesItself() {
    let styled = "\u{1B}[1m\u{1B}[36mbold cyan\u{1B}[0m"
    #expect(styled.terminalOutput == styled)
    let spinner = "\r⠋ loading\u{1B}[K"
    #expect(spinner.terminalOutput == spinner)
    let editor = "\r> hello\u{1B}[K\r\u{1B}[9C"
    #expect(editor.terminalOutput == editor)
    #expect("tab\tand\nlines\r\n".terminalOutput == "tab\tand\nlines\r\n")
  }

  @Test func leavesPlainTextAlone() {
    for text in ["", "plain", "Ünïcödé ★ 漢字 👍🏽", "a;b[c]m"] {
      #expect(text.terminalOutput == text)
    }
  }
}
