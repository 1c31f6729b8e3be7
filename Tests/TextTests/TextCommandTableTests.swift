import SusiCommandLine
import Testing

@testable import SusiText

/// The one table of text commands feeds the chat's help, its reading of slash commands, Tab
/// completion, the subcommands and `--json`.
@Suite struct TextCommandTableTests {
  @Test func theSubcommandsAreTheTableRowsWithAShellForm() {
    #expect(
      TextFrontend.commands.map(\.spec.name) == [
        "chat", "ask", "groups", "skills", "skill", "rate", "myrating", "settings", "login",
        "logout", "signup", "search", "preview", "history",
      ])
  }

  @Test func everyCommandTheHelpListsIsReadByTheChat() {
    let listed = TextSession.helpLines.dropFirst().map { $0[0] }
    #expect(listed.first == "/groups" && listed.last == "/quit")
    #expect(listed.contains("/rate NAME STARS"))
    for usage in listed {
      let name = String(usage.prefix { $0 != " " })
      if case .invalid(let message) = ChatLine.parse(name), message.hasPrefix("unknown") {
        Issue.record("\(name) is listed but not read: \(message)")
      }
    }
    // Aliases are read as their command, but not listed.
    #expect(ChatLine.parse("/?") == .command(TextCommand("help")))
    #expect(!listed.contains { $0.hasPrefix("/ask") })
  }

  @Test func aSubcommandsHelpComesFromItsRow() {
    let rate = TextFrontend.commands.first { $0.spec.name == "rate" }?.spec
    #expect(rate?.usage == "rate NAME STARS")
    #expect(rate?.summary == "rate a skill from 1 to 5 stars (needs a login)")
    #expect(rate?.options.map(\.name) == ["--json", "--utc"])
    #expect(rate?.unusedCommonOptions == [.websearchURL, .allowPrivateTargets])
    let ask = TextFrontend.commands.first { $0.spec.name == "ask" }?.spec
    #expect(ask?.options.map(\.name) == ["--wait", "--json", "--utc"])
    #expect(ask?.unusedCommonOptions == [])
  }

  @Test func oneShotSettingsReadsItsActionsAsTheirCommands() throws {
    let settings = try #require(TextCommands.named("settings"))
    #expect(try TextCommands.read(settings, []) == TextCommand("settings"))
    #expect(try TextCommands.read(settings, ["sync"]) == TextCommand("sync"))
    #expect(
      try TextCommands.read(settings, ["set", "theme", "dark"])
        == TextCommand("set", "dark", key: "theme"))
    #expect(throws: (any Error).self) { try TextCommands.read(settings, ["sink"]) }
  }
}
