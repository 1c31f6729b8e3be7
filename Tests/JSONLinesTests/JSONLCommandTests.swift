import SusiCommandLine
import SusiCore
import SusiJSONLines
import Testing

@Suite struct JSONLCommandTests {
  private func parse(_ words: [String]) throws -> JSONLinesOptions {
    let parsed = try ParsedCommandLine.parse(
      words, for: JSONLinesCommand.spec, common: CommonOptions.specs)
    return try JSONLinesCommand.options(parsed)
  }

  @Test func defaultsToWaitingThirtySecondsWithoutAStateLine() throws {
    #expect(
      try parse([]) == JSONLinesOptions(drainTimeout: 30, waitForEffects: true, replayFirst: false))
  }

  @Test func readsEveryFlag() throws {
    let options = try parse(["--replay-first", "--no-wait", "--drain-timeout", "2.5"])
    #expect(options.replayFirst)
    #expect(!options.waitForEffects)
    #expect(options.drainTimeout == 2.5)
    #expect(try parse(["--drain-timeout=0"]).drainTimeout == 0)
  }

  @Test(arguments: ["-1", "soon", "nan", "inf", "1e9", ""])
  func refusesADrainTimeoutThatIsNotASensibleNumberOfSeconds(_ value: String) {
    #expect(throws: UsageError.self) { try parse(["--drain-timeout", value]) }
  }

  @Test func refusesArgumentsAndUnknownOptions() {
    #expect(throws: UsageError.self) { try parse(["hello"]) }
    #expect(throws: UsageError.self) { try parse(["--replay"]) }
  }

  @Test func mapsTheSummaryToAnExitCode() {
    #expect(JSONLinesCommand.exitCode(JSONLinesSummary()) == ExitCode.success)
    var timedOut = JSONLinesSummary()
    timedOut.drained = false
    #expect(JSONLinesCommand.exitCode(timedOut) == ExitCode.success)
    var broken = JSONLinesSummary()
    broken.outputFailure = JSONLinesIOError("broken pipe")
    #expect(JSONLinesCommand.exitCode(broken) == ExitCode.ioError)
    var unlogged = JSONLinesSummary()
    unlogged.logFailure = "disk full"
    #expect(JSONLinesCommand.exitCode(unlogged) == ExitCode.ioError)
  }

  @Test func documentsEveryErrorCodeInItsHelp() {
    let help = HelpText.command(JSONLinesCommand.spec, common: CommonOptions.specs)
    for code in JSONLinesError.Code.allCases {
      #expect(help.contains(code.rawValue), "help does not mention \(code.rawValue)")
    }
    #expect(help.contains("--allow-admin"))
  }
}
