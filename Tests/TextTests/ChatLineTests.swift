import SusiText
import Testing

@Suite struct ChatLineTests {
  @Test func plainTextIsAQuery() {
    #expect(ChatLine.parse("  what is the time  ") == .query("what is the time"))
    #expect(ChatLine.parse("//etc/hosts?") == .query("/etc/hosts?"))
    #expect(ChatLine.parse("   ") == .empty)
  }

  @Test func slashCommandsWithArguments() {
    #expect(ChatLine.parse("/groups") == .command(.groups))
    #expect(ChatLine.parse("/skills") == .command(.skills(group: nil)))
    #expect(
      ChatLine.parse("/skills Games, Trivia and Accessories")
        == .command(.skills(group: "Games, Trivia and Accessories")))
    #expect(ChatLine.parse("/skill Flip a coin") == .command(.skill(name: "Flip a coin")))
    #expect(ChatLine.parse("/rate Flip a coin 5") == .command(.rate(name: "Flip a coin", stars: 5)))
    #expect(
      ChatLine.parse("/rate \"Flip a coin\" 4") == .command(.rate(name: "Flip a coin", stars: 4)))
    #expect(ChatLine.parse("/myrating joke") == .command(.myRating(name: "joke")))
    #expect(
      ChatLine.parse("/set userName Jane Doe") == .command(.set(key: "userName", value: "Jane Doe"))
    )
    #expect(ChatLine.parse("/login me@example.org") == .command(.login(email: "me@example.org")))
    #expect(ChatLine.parse("/login") == .command(.login(email: nil)))
    #expect(ChatLine.parse("/signup") == .command(.signup(email: nil)))
    #expect(ChatLine.parse("/server") == .command(.server(url: nil)))
    #expect(
      ChatLine.parse("/server http://127.0.0.1:4000")
        == .command(.server(url: "http://127.0.0.1:4000")))
    #expect(ChatLine.parse("/search swift language") == .command(.search("swift language")))
    #expect(
      ChatLine.parse("/preview https://swift.org") == .command(.preview(url: "https://swift.org")))
    for (line, command) in [
      ("/settings", TextCommand.settings), ("/sync", .sync), ("/logout", .logout),
      ("/history", .history),
      ("/replay", .replay), ("/help", .help), ("/quit", .quit), ("/QUIT", .quit), ("/exit", .quit),
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
