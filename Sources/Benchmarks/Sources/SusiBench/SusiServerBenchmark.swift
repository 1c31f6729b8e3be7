import Foundation
import SusiHTTPServer
import SusiHTTPTypes
import SusiServer

/// The embedded SUSI server's request handling, without sockets: chat answers, the full skill
/// list, and parsing the default skill files.
let susiServerBenchmark = Benchmark(
  name: "server", summary: "embedded SUSI server: chat, skill list, skill parsing"
) { _ in
  let handler = try SusiServerHandler(configuration: ServerConfiguration(seed: 1))
  let examples = handler.library.skills.flatMap { skill in
    skill.file.examples.map { (skill.language, $0) }
  }
  func request(_ path: String, _ parameters: [(String, String)]) -> HTTPRequest {
    HTTPRequest(method: .get, target: path + "?" + URLEncodedForm.encode(parameters))
  }

  func measure(_ label: String, iterations: Int, _ body: (Int) async throws -> Void) async rethrows
  {
    let clock = ContinuousClock()
    let start = clock.now
    for i in 0..<iterations { try await body(i) }
    let elapsed = clock.now - start
    let seconds =
      Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let perOperation = seconds / Double(iterations) * 1e6
    print(
      "\(label.padding(toLength: 34, withPad: " ", startingAt: 0)) \(String(format: "%9.1f", perOperation)) µs/op  \(String(format: "%9.0f", Double(iterations) / seconds)) op/s"
    )
  }

  print("skills loaded: \(handler.library.skills.count), examples: \(examples.count)")
  await measure("chat.json (each example in turn)", iterations: 5_000) { i in
    let (language, query) = examples[i % examples.count]
    _ = await handler.handle(request("/susi/chat.json", [("q", query), ("language", language)]))
  }
  await measure("chat.json (fallback + websearch)", iterations: 5_000) { i in
    _ = await handler.handle(request("/susi/chat.json", [("q", "unknown question \(i)")]))
  }
  await measure("getSkillList.json group=All", iterations: 500) { _ in
    _ = await handler.handle(request("/cms/getSkillList.json", [("group", "All")]))
  }
  await measure("getSkillList.json applyFilter", iterations: 500) { _ in
    _ = await handler.handle(
      request(
        "/cms/getSkillList.json",
        [
          ("applyFilter", "true"), ("filter_type", "lexicographical"), ("filter_name", "ascending"),
          ("count", "10"),
        ]))
  }
  let files = handler.library.skills.map { skill in
    handler.library.dataDirectory.appendingPathComponent(
      "models/\(skill.model)/\(skill.group)/\(skill.language)/\(skill.tag).txt")
  }
  let contents = try files.map { try Array(Data(contentsOf: $0)) }
  let bytes = contents.reduce(0) { $0 + $1.count }
  await measure("parse \(contents.count) skill files (\(bytes) B)", iterations: 500) { _ in
    for file in contents { _ = try? SkillParser.parse(file) }
  }
}
