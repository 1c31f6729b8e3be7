import Foundation
import SusiHTTPServer
import SusiHTTPTesting
import SusiHTTPTypes
import SusiTesting
import Synchronization
import Testing

/// Two real `susi serve` processes on one database log, end to end: clients post intents to
/// both nodes at once, a webhook subscriber (a small receiver on 127.0.0.1) and an SSE stream on
/// the second node watch. Every acknowledged intent is in the log once, the seqs have no gap,
/// `susi replay --verify` passes, the subscriber gets every event in order (at least once), and
/// the stream on node B shows what node A appended.
@Suite(
  .enabled(
    if: PostgresCluster.program.testsShouldRun,
    Comment(rawValue: PostgresCluster.program.skipNote)))
struct PostgresFleetTests {
  let susi: SusiBinary
  let folder = FileManagerTestFolder()
  static let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

  init() throws { susi = try SusiBinary.built() }

  private var environment: [String: String] {
    SusiBinary.isolatedEnvironment(folder.path, ["SUSI_EMBEDDED_PORT": "0"])
  }

  private func startNode(_ arguments: [String]) async throws -> (SusiProcess, Int) {
    try await susi.startServeNode(["--allow-private-targets"] + arguments, environment: environment)
  }

  @Test func intentsPostedToTwoNodesAreLoggedOnceInOrderAndSeenByStreamsAndSubscribers()
    async throws
  {
    let cluster = try PostgresCluster.shared()
    let log = cluster.uri(try cluster.database(), extra: "&log=fleet")
    let one = folder.path + "/one"
    let two = folder.path + "/two"
    let keys = try await susi.run(
      ["serve", "keys", "init", "--log", log, "--state-dir", one], environment: environment)
    #expect(keys.status == 0, "\(keys.stderr)")
    let key = keys.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    let auth = [("Authorization", "Bearer \(key)"), ("Content-Type", "application/json")]
    let (nodeA, portA) = try await startNode(["--log", log, "--state-dir", one])
    // Node B finds the key's hash in the database beside the log: no key file to share.
    let (nodeB, portB) = try await startNode(["--log", log, "--state-dir", two])
    let receiver = try HookReceiver()

    // The subscriber, from the start of the log, added on node A: the list is in the database,
    // so node B refuses the same id as a conflict even before it has read the list again.
    let subscriber =
      #"{"id":"fleet-hook","url":"\#(receiver.url)","secret":"\#(Self.secret)","after":0}"#
    for (port, status) in [(portA, 201), (portB, 409)] {
      let added = await onThread {
        try? LoopbackHTTPClient(port: port).request(
          "POST", "/admin/subscribers", headers: auth, body: subscriber)
      }
      #expect(added?.status == status, "\(added?.text ?? "")")
    }

    // An SSE stream on node B from the start of the log, read on a thread of its own until B
    // stops.
    let stream = StreamText()
    let streaming = Task {
      await onThread {
        guard let client = try? LoopbackHTTPClient(port: portB, timeoutSeconds: 120) else { return }
        defer { client.close() }
        try? client.sendRequest(
          "GET", "/events/stream?after=0", headers: [("Authorization", "Bearer \(key)")])
        guard (try? client.readHeadBlocking())?.status == 200 else { return }
        while let chunk = try? client.readChunkBlocking() { stream.append(chunk) }
      }
    }

    // Four clients on each node post at once; each keeps what was acknowledged.
    let posts = Posts()
    await withTaskGroup(of: Void.self) { group in
      for (port, name) in [(portA, "a"), (portB, "b")] {
        for client in 0..<4 {
          group.addTask {
            await onThread {
              guard let connection = try? LoopbackHTTPClient(port: port) else { return }
              defer { connection.close() }
              for n in 0..<15 {
                let query = "node \(name) client \(client) intent \(n)"
                let response = try? connection.request(
                  "POST", "/actions", headers: auth,
                  body: #"{"type":"sendMessage","payload":{"query":"\#(query)"}}"#)
                guard response?.status == 202, let seq = Self.seq(in: response?.text ?? "")
                else {
                  posts.refused.withLock { $0.append("\(query): \(response?.text ?? "no answer")") }
                  continue
                }
                posts.acknowledged.withLock { $0.append((seq, query, port)) }
              }
            }
          }
        }
      }
    }
    let acks = posts.acknowledged.withLock { $0 }
    let refused = posts.refused.withLock { $0 }
    #expect(refused.isEmpty, "\(refused)")
    #expect(acks.count == 120)

    // Every intent answered (its effects ran on the node that appended it): then the log is
    // complete, and its last seq is what the stream and the subscriber must reach.
    var lastSeq = 0
    await waitUntil("every intent answered") {
      guard let (lines, last) = await Self.events(port: portA, key: key) else { return false }
      let caused = Set(lines.compactMap(Self.cause))
      lastSeq = last
      return acks.allSatisfy { caused.contains($0.seq) }
    }
    await waitUntil("the stream on node B reached seq \(lastSeq)") {
      stream.ids.last.map { $0 >= lastSeq } ?? false
    }
    await waitUntil("the subscriber got every event through \(lastSeq)") {
      Set(receiver.seqs).isSuperset(of: 1...lastSeq)
    }
    let stoppedA = await onThread { nodeA.stop() }
    let stoppedB = await onThread { nodeB.stop() }
    #expect(stoppedA.status == 0 && stoppedB.status == 0, "\(stoppedA.stderr)\(stoppedB.stderr)")
    await streaming.value
    await receiver.stop()

    // The log: gap-free seqs 1…N, every acknowledged intent once, at its seq; it replays.
    let copy = folder.path + "/copy.jsonl"
    let copied = try await susi.run(["log", "copy", log, copy], environment: environment)
    #expect(copied.status == 0, "\(copied.stderr)")
    let lines = try String(contentsOfFile: copy, encoding: .utf8).split(separator: "\n")
    #expect(lines.count == lastSeq, "nothing was appended once every intent was answered")
    for (index, line) in lines.enumerated() {
      #expect(line.hasPrefix(#"{"v":2,"seq":\#(index + 1),"#), "line \(index + 1): \(line)")
    }
    for ack in acks {
      // The request id of the post that carried it stands between the origin and the type.
      let intent = #""type":"sendMessage","payload":{"query":"\#(ack.query)"}"#
      let matching = lines.indices.filter {
        lines[$0].contains(#""origin":"webhook","requestId":""#) && lines[$0].contains(intent)
      }
      #expect(matching == [ack.seq - 1], "\(ack.query) at seq \(ack.seq): lines \(matching)")
    }
    #expect(Set(acks.map(\.port)) == [portA, portB])
    let verify = try await susi.run(["replay", log, "--verify"], environment: environment)
    #expect(verify.status == 0, "\(verify.stderr)")
    #expect(verify.stdout.hasPrefix("verified: \(lines.count) events"), "\(verify.stdout)")

    // The stream on node B: every event in seq order, node A's among them, each its log line.
    let streamed = stream.events
    #expect(streamed.map(\.id) == Array(1...lines.count))
    for (index, event) in streamed.enumerated() where index < lines.count {
      #expect(event.data == String(lines[index]), "seq \(index + 1)")
    }
    let fromA = acks.filter { $0.port == portA }.map(\.seq)
    #expect(!fromA.isEmpty && fromA.allSatisfy { seq in streamed.contains { $0.id == seq } })

    // The subscriber: at least once, in order (a repeat only after a takeover), exact lines.
    var firstSeen: [Int] = []
    for seq in receiver.seqs where !firstSeen.contains(seq) { firstSeen.append(seq) }
    #expect(firstSeen == Array(1...lines.count))
    for (seq, body) in receiver.deliveries where seq >= 1 && seq <= lines.count {
      #expect(body == String(lines[seq - 1]), "delivery of seq \(seq)")
    }
  }

  /// The `seq` of a `{"seq":N}` answer.
  static func seq(in text: String) -> Int? {
    guard let range = text.range(of: #""seq":"#) else { return nil }
    return Int(text[range.upperBound...].prefix { $0.isNumber })
  }

  /// The `cause` of a log line, if it has one.
  static func cause(_ line: String) -> Int? {
    guard let range = line.range(of: #""cause":"#) else { return nil }
    return Int(line[range.upperBound...].prefix { $0.isNumber })
  }

  /// The whole log as `GET /events` pages it, and the last seq it reports.
  static func events(port: Int, key: String) async -> (lines: [String], last: Int)? {
    await onThread { () -> (lines: [String], last: Int)? in
      guard let client = try? LoopbackHTTPClient(port: port) else { return nil }
      defer { client.close() }
      var lines: [String] = []
      var last = 0
      while true {
        guard
          let page = try? client.request(
            "GET", "/events?after=\(lines.count)&limit=1000",
            headers: [("Authorization", "Bearer \(key)")]),
          page.status == 200, let newest = page.header("X-Last-Seq").flatMap({ Int($0) })
        else { return nil }
        last = max(last, newest)
        let more = page.text.split(separator: "\n").map(String.init)
        lines += more
        if more.isEmpty || lines.count >= last { return (lines, last) }
      }
    }
  }
}

/// What the posting clients were answered, shared by their threads.
final class Posts: Sendable {
  let acknowledged = Mutex<[(seq: Int, query: String, port: Int)]>([])
  let refused = Mutex<[String]>([])
}

/// The text of an SSE stream as it arrives, parsed into its events.
final class StreamText: Sendable {
  private let text = Mutex("")

  func append(_ bytes: [UInt8]) { text.withLock { $0 += String(decoding: bytes, as: UTF8.self) } }

  /// The complete events (`id:` and `data:`), in the order they came.
  var events: [(id: Int, data: String)] {
    text.withLock { $0 }.components(separatedBy: "\n\n").compactMap { block in
      var id: Int?
      var data: String?
      for line in block.split(separator: "\n") {
        if line.hasPrefix("id: ") { id = Int(line.dropFirst(4)) }
        if line.hasPrefix("data: ") { data = String(line.dropFirst(6)) }
      }
      guard let id, let data else { return nil }
      return (id, data)
    }
  }

  var ids: [Int] { events.map(\.id) }
}

/// A webhook receiver on 127.0.0.1 (port 0): records each delivery's seq (from `webhook-id:
/// evt_<seq>`) and body, in the order they arrive, and answers 204.
final class HookReceiver: HTTPHandler {
  private let server: HTTPServer
  private let received = Mutex<[(seq: Int, body: String)]>([])
  let url: String

  init() throws {
    let box = Box()
    let server = HTTPServer(
      configuration: .init(host: "127.0.0.1", port: 0, eventLoopCount: 1), handler: box)
    url = "http://127.0.0.1:\(try server.start())/hook"
    self.server = server
    box.receiver.withLock { $0 = self }
  }

  func handle(_ request: HTTPRequest) async -> HTTPResponse {
    let id = request.headers["webhook-id"] ?? ""
    let seq = id.hasPrefix("evt_") ? Int(id.dropFirst(4)) ?? -1 : -1
    received.withLock { $0.append((seq, String(decoding: request.body, as: UTF8.self))) }
    return HTTPResponse(status: 204)
  }

  var seqs: [Int] { received.withLock { $0.map(\.seq) } }
  var deliveries: [(seq: Int, body: String)] { received.withLock { $0 } }

  func stop() async { await server.shutdown() }

  /// Lets the server hold the receiver before the receiver exists.
  private final class Box: HTTPHandler {
    let receiver = Mutex<HookReceiver?>(nil)
    func handle(_ request: HTTPRequest) async -> HTTPResponse {
      guard let receiver = receiver.withLock({ $0 }) else { return HTTPResponse(status: 503) }
      return await receiver.handle(request)
    }
  }
}
