import Foundation
import SusiCore
import SusiHTTPClient
import SusiHTTPTypes
import SusiRunner
import Synchronization

/// Effects through the runner with the network replaced by canned replies: what decoding and
/// scheduling cost, without sockets.
let runnerBenchmark = Benchmark(
  name: "runner",
  summary: "effects/s through the runner: skill list, chat, refusals (in-memory transport)"
) { _ in
  let skillList = RunnerBenchmarkData.skillList(count: 1000)
  let chat = RunnerBenchmarkData.chat(rows: 100)
  print(
    "  skill list reply \(skillList.count / 1024) KiB (1000 skills), chat reply \(chat.count / 1024) KiB"
  )
  let transport = CannedTransport { path in path.hasPrefix("/cms/getSkillList") ? skillList : chat }
  let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
    "susi-bench-\(UUID().uuidString)"
  ).path
  defer { try? FileManager.default.removeItem(atPath: folder) }
  var configuration = RunnerConfiguration(
    stateDirectory: folder, embeddedServerURL: "http://127.0.0.1:1")
  configuration.transport = transport
  configuration.randomSeed = 1
  configuration.timezoneOffsetMinutes = 0
  configuration.machineLanguage = "en"

  let cases: [(String, Int, Effect)] = [
    (
      "fetchSkills (all, 1000 skills)", 200,
      .fetchSkills(server: "embedded", group: nil, language: "en")
    ),
    (
      "chat (21 actions, 100-row table)", 2000, .chat(server: "embedded", query: "q", language: nil)
    ),
  ]
  for (name, count, effect) in cases {
    let runner = SusiRunner(configuration: configuration)
    let delivered = Mutex(0)
    let start = ContinuousClock.now
    for cause in 1...count {
      runner.start(effect, cause: cause) { _ in delivered.withLock { $0 += 1 } }
    }
    _ = await runner.waitUntilIdle(timeout: 600)
    let seconds = (ContinuousClock.now - start) / .seconds(1)
    let done = delivered.withLock { $0 }
    print(
      "  \(name): \(done) results in \(String(format: "%.3f", seconds)) s = \(Int(Double(done) / seconds)) effects/s"
    )
    await runner.shutdown()
  }
}

/// Answers every request at once with a canned body.
private struct CannedTransport: HTTPTransport {
  let body: @Sendable (String) -> [UInt8]

  func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
    var path = Substring(request.url.drop { $0 != "/" }.dropFirst(2))
    path = path.drop { $0 != "/" }
    return TransportResponse(
      status: 200, headers: ["Content-Type": "application/javascript"], body: body(String(path)))
  }
}

private enum RunnerBenchmarkData {
  static func skillList(count: Int) -> [UInt8] {
    var skills: [String] = []
    for i in 0..<count {
      skills.append(
        """
        "skill \(i)": {"model": "general", "group": "Group \(i % 20)", "language": "en",
          "developer_privacy_policy": null, "descriptions": "Skill number \(i), which does things",
          "image": "images/skill_\(i).png", "author": "Author \(i)", "author_url": "https://example.com/\(i)",
          "author_email": null, "skill_name": "Skill \(i)", "protected": false, "dynamic_content": false,
          "examples": ["do thing \(i)", "do other thing \(i)"],
          "skill_rating": {"negative": "0", "positive": "\(i % 7)", "feedback_count": 3, "bookmark_count": 1,
            "stars": {"one_star": 1, "two_star": 0, "three_star": 2, "four_star": 5, "five_star": 9,
                      "avg_star": 4.11, "total_star": 17}},
          "usage_count": \(i), "skill_tag": "skill \(i)", "lastModifiedTime": "2020-01-18T14:37:45Z",
          "creationTime": "2017-08-20T10:11:12Z", "supported_languages": [{"language": "en", "name": "Skill \(i)"}]}
        """)
    }
    return Array(
      #"{"accepted": true, "model": "general", "group": "All", "language": "en", "skills": {"#.utf8)
      + Array(skills.joined(separator: ",\n").utf8) + Array(#"}, "message": "ok"}"#.utf8)
  }

  static func chat(rows: Int) -> [UInt8] {
    let data = (0..<rows).map {
      #"{"title": "Row \#($0)", "byline": "Author \#($0)", "url": "https://example.com/\#($0)", "share": \#($0)}"#
    }
    var actions = [
      #"{"type": "answer", "expression": "Here you go", "language": "en"}"#,
      #"{"type": "table", "columns": {"title": "Title", "byline": "Author"}, "count": -1}"#,
      #"{"type": "rss", "title": "title", "description": "byline", "link": "url", "count": 10}"#,
      #"{"type": "map", "latitude": "52.52", "longitude": "13.405", "zoom": "13"}"#,
      #"{"type": "piechart", "key": "title", "value": "share", "unit": "%"}"#,
    ]
    for i in 0..<16 { actions.append(#"{"type": "answer", "expression": "line \#(i)"}"#) }
    let text = """
      {"query": "q", "answers": [{"data": [\(data.joined(separator: ","))], "metadata": {"count": \(rows)},
       "actions": [\(actions.joined(separator: ","))], "skills": ["/susi_skill_data/models/general/News/en/news.txt"]}],
       "query_date": "2020-09-07T21:16:14.123Z", "answer_date": "2020-09-07T21:16:14.135Z",
       "session": {"identity": {"type": "host", "name": "x", "anonymous": true}}}
      """
    return Array(text.utf8)
  }
}
