import SusiCommandLine
import SusiText
import Testing

@Suite struct ChatLineTests {
  @Test func plainTextIsAQuery() {
    #expect(ChatLine.parse("  what is the time  ") == .query("what is the time"))
    #expect(ChatLine.parse("//etc/hosts?") == .query("/etc/hosts?"))
    #expect(ChatLine.parse("   ") == .empty)
  }

  @Test func slashCommandsWithArguments() {
    #expect(ChatLine.parse("/groups") == .command(.init("groups")))
    #expect(ChatLine.parse("/skills") == .command(.init("skills", nil)))
    #expect(
      ChatLine.parse("/skills Games, Trivia and Accessories")
        == .command(.init("skills", "Games, Trivia and Accessories")))
    #expect(ChatLine.parse("/skill Flip a coin") == .command(.init("skill", "Flip a coin")))
    #expect(
      ChatLine.parse("/rate Flip a coin 5") == .command(.init("rate", "Flip a coin", stars: 5)))
    #expect(
      ChatLine.parse("/rate \"Flip a coin\" 4") == .command(.init("rate", "Flip a coin", stars: 4)))
    #expect(ChatLine.parse("/myrating joke") == .command(.init("myrating", "joke")))
    #expect(
      ChatLine.parse("/set userName Jane Doe")
        == .command(.init("set", "Jane Doe", key: "userName"))
    )
    #expect(ChatLine.parse("/login me@example.org") == .command(.init("login", "me@example.org")))
    #expect(ChatLine.parse("/login") == .command(.init("login", nil)))
    #expect(ChatLine.parse("/signup") == .command(.init("signup", nil)))
    #expect(ChatLine.parse("/server") == .command(.init("server", nil)))
    #expect(
      ChatLine.parse("/server http://127.0.0.1:4000")
        == .command(.init("server", "http://127.0.0.1:4000")))
    #expect(ChatLine.parse("/search swift language") == .command(.init("search", "swift language")))
    #expect(
      ChatLine.parse("/preview https://swift.org")
        == .command(.init("preview", "https://swift.org")))
    for (line, command) in [
      ("/settings", TextCommand("settings")), ("/sync", .init("sync")),
      ("/logout", .init("logout")),
      ("/history", .init("history")),
      ("/replay", .init("replay")), ("/help", .init("help")), ("/quit", .init("quit")),
      ("/QUIT", .init("quit")), ("/exit", .init("quit")),
    ] {
      #expect(ChatLine.parse(line) == .command(command))
    }
  }

  @Test func mistakesAreExplainedWithASuggestion() {
    #expect(
      ChatLine.parse("/skils") == .invalid("unknown command '/skils'; did you mean '/skills'?"))
    #expect(ChatLine.parse("/frobnicate") == .invalid("unknown command '/frobnicate'"))
    #expect(
      ChatLine.parse("/rate joke")
        == .invalid("rate needs a skill NAME and STARS (1 to 5), e.g. rate \"Flip a coin\" 5"))
    #expect(ChatLine.parse("/rate joke 9") == .invalid("STARS must be 1 to 5, not 9"))
    #expect(ChatLine.parse("/skill") == .invalid("skill needs a skill NAME"))
    #expect(ChatLine.parse("/groups now") == .invalid("groups takes no arguments"))
    #expect(
      ChatLine.parse("/set theme") == .invalid("set needs a KEY and a VALUE, e.g. set theme dark"))
    #expect(ChatLine.parse("/skill \"open") == .invalid("a \" quote is not closed"))
    #expect(ChatLine.parse("/") == .invalid("a command name must follow '/'; /help lists them"))
  }

  @Test func wordsSplitLikeAShell() throws {
    #expect(try CommandWords.split(#"a "b c" 'd e' f\ g"#) == ["a", "b c", "d e", "f g"])
    #expect(try CommandWords.split(#"say "it's""#) == ["say", "it's"])
    #expect(try CommandWords.split("  ") == [])
    #expect(try CommandWords.split(#""""#) == [""])
  }
}
