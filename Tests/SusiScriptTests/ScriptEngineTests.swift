import Glibc
import Testing

@testable import SusiScript

@Suite struct ScriptEngineTests {
  func value(_ source: String, limits: ScriptLimits = ScriptLimits()) throws -> String {
    try ScriptEngine.evaluate(source, limits: limits).get().value
  }

  @Test func theLastExpressionIsTheValue() throws {
    #expect(try value("1+2;") == "3")
    #expect(try value("Math.pow(2, 10).toString().split('.')[0];") == "1024")
    #expect(try value("(+'101').toString(2)") == "1100101")
    #expect(try value("parseInt('ff', 16)") == "255")
    #expect(try value("var a = [3, 1, 2]; a.sort(); a.join('-')") == "1-2-3")
    #expect(try value("'caf\\u00e9 ☕'") == "café ☕")
  }

  @Test func undefinedAndNullAreEmpty() throws {
    #expect(try value("var x = 1;") == "")
    #expect(try value("null") == "")
  }

  @Test func printIsCollectedNotWritten() throws {
    let outcome = try ScriptEngine.evaluate("print('a', 1, true); print('b'); undefined").get()
    #expect(outcome == ScriptOutcome(value: "", printed: "a 1 true\nb\n"))
  }

  @Test func errorsNameTheirCause() {
    #expect(
      ScriptEngine.evaluate("nosuchthing + 1")
        == .failure(.failed("ReferenceError: identifier 'nosuchthing' undefined")))
    guard case .failure(.failed(let message)) = ScriptEngine.evaluate("1 +* 2") else {
      Issue.record("a syntax error was not reported")
      return
    }
    #expect(message.hasPrefix("SyntaxError"))
    #expect(ScriptEngine.evaluate("throw new Error('nope')") == .failure(.failed("Error: nope")))
  }

  @Test func noHostFunctionsAreReachable() throws {
    for name in ["require", "load", "readFile", "Packages", "java", "process", "alert"] {
      #expect(try value("typeof \(name)") == "undefined", "\(name)")
    }
  }

  @Test func anEndlessLoopIsStoppedAtTheTimeLimit() {
    let limits = ScriptLimits(seconds: 0.2)
    #expect(
      ScriptEngine.evaluate("while (true) {}", limits: limits) == .failure(.timedOut(seconds: 0.2)))
    #expect(
      ScriptEngine.evaluate("for (;;) { try { while (true) {} } catch (e) {} }", limits: limits)
        == .failure(.timedOut(seconds: 0.2)))
  }

  @Test func aGrowingHeapIsStoppedAtTheMemoryLimit() {
    // Time enough that only the memory limit can stop these scripts, even on a loaded machine
    // (with the default second, a busy test run stopped one by time first).
    let limits = ScriptLimits(seconds: 30, memoryBytes: 4 << 20)
    #expect(
      ScriptEngine.evaluate("var a = []; while (true) { a.push('x' + a.length); }", limits: limits)
        == .failure(.outOfMemory(bytes: 4 << 20)))
    #expect(
      ScriptEngine.evaluate("var s = 'x'; while (true) { s = s + s; }", limits: limits)
        == .failure(.outOfMemory(bytes: 4 << 20)))
  }

  @Test func catchingTheMemoryErrorDoesNotEscapeTheLimits() {
    let limits = ScriptLimits(seconds: 0.5, memoryBytes: 4 << 20)
    let result = ScriptEngine.evaluate(
      "var a = []; while (true) { try { a.push(new Array(1000).join('x') + a.length); } catch (e) {} }",
      limits: limits)
    #expect(
      result == .failure(.outOfMemory(bytes: 4 << 20))
        || result == .failure(.timedOut(seconds: 0.5)))
  }

  @Test func aLongResultIsRefused() {
    let limits = ScriptLimits(outputBytes: 1000)
    #expect(
      ScriptEngine.evaluate("new Array(2000).join('x')", limits: limits)
        == .failure(.outputTooLong(bytes: 1000)))
    #expect(
      ScriptEngine.evaluate("for (var i = 0; i < 500; i++) print('xx')", limits: limits)
        == .failure(.outputTooLong(bytes: 1000)))
  }

  @Test func oneWorkerServesScriptAfterScriptAndAStoppedOneIsReplaced() throws {
    // Workers of its own: other tests' scripts, run at the same time, share the default ones.
    let workers = ScriptEngine.Workers()
    func value(_ source: String) throws -> String {
      try workers.evaluate(source, limits: ScriptLimits()).get().value
    }
    #expect(try value("1") == "1")
    let worker = try #require(workers.keptWorker)
    #expect(try value("var a = []; for (var i = 0; i < 1000; i++) a.push(i); a.length") == "1000")
    #expect(workers.keptWorker == worker)
    #expect(
      workers.evaluate("nope(", limits: ScriptLimits())
        != .success(ScriptOutcome(value: "", printed: "")))
    #expect(workers.keptWorker == worker)
    // Each script starts afresh: nothing a script leaves is seen by the next.
    _ = try value("var leftover = 5; Object.prototype.injected = 1; 0")
    #expect(try value("typeof leftover + ' ' + typeof ({}).injected") == "undefined undefined")
    kill(worker, SIGKILL)
    #expect(try value("2") == "2")
    #expect(workers.keptWorker != worker)
  }

  @Test func scriptsRunSideBySide() async {
    await withTaskGroup(of: String?.self) { group in
      for number in 0..<4 {
        group.addTask { try? ScriptEngine.evaluate("\(number) * 10").get().value }
      }
      var values: Set<String> = []
      for await value in group { if let value { values.insert(value) } }
      #expect(values == ["0", "10", "20", "30"])
    }
  }
}
