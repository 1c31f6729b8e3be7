import Foundation
public import SusiClock
public import SusiHTTPClient
import SusiHTTPTypes
public import SusiJSON
import Synchronization

/// Runs `!console:` rules: fetches a rule's `url` through the project's HTTP client, within time
/// and size limits, to public addresses only unless the operator allows more, every redirect
/// checked, and keeps successful replies for a short while.
///
/// A rule that gives no rows (no network, an error status, a reply that does not fit the path)
/// gives nil, so the interpreter tries the next intent, as the real server does.
public final class ConsoleService: Sendable {
  /// The limits and policy of the fetches.
  public struct Configuration: Sendable {
    /// Lets rules reach loopback and private addresses (`--allow-private-targets`; off, only
    /// public hosts are fetched).
    public var allowsPrivateHosts: Bool
    /// Longest wait for the connection or the next bytes, and for the whole fetch, in seconds.
    public var idleTimeout: Double
    public var totalTimeout: Double
    /// The largest reply body read.
    public var maximumBodyBytes: Int
    /// How long a successful reply is reused, in seconds (0 = never).
    public var cacheSeconds: Double
    /// Bytes of reply bodies the cache holds at most.
    public var cacheBytes: Int
    /// A PEM file of CA certificates trusted for `https://` besides the system store (which
    /// `SSL_CERT_FILE` and `SSL_CERT_DIR` replace): `--ca-file`, as for every other request.
    public var caFile: String? = nil

    /// By default public hosts only, 5 s idle and 8 s total, 2 MiB per reply, replies kept 60 s,
    /// 8 MiB of them.
    public init(
      allowsPrivateHosts: Bool = false, idleTimeout: Double = 5, totalTimeout: Double = 8,
      maximumBodyBytes: Int = 2 << 20, cacheSeconds: Double = 60, cacheBytes: Int = 8 << 20
    ) {
      self.allowsPrivateHosts = allowsPrivateHosts
      self.idleTimeout = idleTimeout
      self.totalTimeout = totalTimeout
      self.maximumBodyBytes = maximumBodyBytes
      self.cacheSeconds = cacheSeconds
      self.cacheBytes = cacheBytes
    }
  }

  /// The transport given, or the project's own, made at the first fetch (most servers never
  /// fetch).
  private let transport: Mutex<(any HTTPTransport)?>
  let configuration: Configuration
  let clock: any TimeSource
  let warn: @Sendable (String) -> Void
  private let cache = Mutex(ReplyCache())

  /// - Parameters:
  ///   - transport: how to reach the network; nil = a `SocketTransport`, made when first needed.
  ///   - warn: told, in one line, why a fetch failed (the rule then falls through).
  public init(
    transport: (any HTTPTransport)?, configuration: Configuration = Configuration(),
    clock: any TimeSource = SystemTimeSource(),
    warn: @escaping @Sendable (String) -> Void = { _ in }
  ) {
    self.transport = Mutex(transport)
    self.configuration = configuration
    self.clock = clock
    self.warn = warn
  }

  /// Why `caFile` cannot be trusted for console fetches (unreadable, no certificates), or nil.
  public static func problem(withCAFile caFile: String) -> String? {
    SocketTransport.problem(withCAFile: caFile)
  }

  /// The rows `rule` gives with `bindings`, nil when it gives none: inline `data`, replaced by
  /// the rows of the `url`'s reply at `path` when there are any, then a row of the `response`
  /// headers asked for; a rule with only `actions` gives one row holding them. As on the real
  /// server, the first row of a fetched reply also holds the rule's `actions`.
  public func rows(_ rule: ConsoleDefinition, bindings: SkillBindings) async -> [JSONObject]? {
    guard let template = rule.url else {
      if let data = rule.data, !data.isEmpty { return data }
      guard !rule.actions.isEmpty else { return nil }
      return [["actions": .array(rule.actions.map(JSON.object))]]
    }
    var rows = rule.data ?? []
    guard let url = bindings.fill(template, urlEncoded: true) else {
      return rows.isEmpty ? nil : rows
    }
    let path = rule.path.flatMap { bindings.fill($0) }
    var headers = HTTPHeaders()
    headers.add("User-Agent", "susi (SUSI skill console rule)")
    if path != nil { headers.add("Accept", "application/json") }
    for field in rule.requestHeaders { headers.set(field.name, bindings.fill(field.value) ?? "") }
    guard let reply = await fetch(url, headers: headers) else { return rows.isEmpty ? nil : rows }
    var fetched: [JSONObject] = []
    if let path {
      if let found = ConsolePath.rows(reply.body, path: path) {
        fetched = found
      } else {
        warn("the reply of \(Self.display(url)) does not fit the path \(path)")
      }
    }
    var headerRow = JSONObject()
    for field in rule.responseHeaders {
      if let value = reply.headers[field.header] { headerRow[field.variable] = .string(value) }
    }
    if !headerRow.isEmpty { fetched.append(headerRow) }
    if !fetched.isEmpty {
      if !rule.actions.isEmpty, var first = fetched.first {
        first["actions"] = .array(rule.actions.map(JSON.object))
        fetched[0] = first
      }
      rows = fetched
    }
    return rows.isEmpty ? nil : rows
  }

  /// Answers with `rule`: its rows, and its actions as the real server sends them (the
  /// definition's `actions`, then the answer line), each filled from the rows, then `bindings`.
  /// `answers` are the alternatives after `!console:` (split at `|`), of which `pick(count)`
  /// chooses one. nil when the rule gives no rows or the chosen answer names a variable no row
  /// holds: the interpreter then tries the next intent.
  public func answer(
    _ rule: ConsoleDefinition, bindings: SkillBindings, answers: [String], language: String,
    line: Int, pick: (Int) -> Int
  ) async -> ConsoleAnswer? {
    guard let rows = await rows(rule, bindings: bindings) else { return nil }
    return ConsoleAnswer.make(
      rule: rule, rows: rows, bindings: bindings, answers: answers, language: language,
      line: line, pick: pick)
  }

  /// `rows`, for a caller that is not async (see `answerWaiting`).
  public func rowsWaiting(_ rule: ConsoleDefinition, bindings: SkillBindings) -> [JSONObject]? {
    waiting { await self.rows(rule, bindings: bindings) }
  }

  /// `answer`, for a caller that is not async: runs it on a thread of its own and waits.
  /// Blocks the calling thread for up to the fetch's total timeout.
  public func answerWaiting(
    _ rule: ConsoleDefinition, bindings: SkillBindings, answers: [String], language: String,
    line: Int, pick: @escaping @Sendable (Int) -> Int
  ) -> ConsoleAnswer? {
    waiting {
      await self.answer(
        rule, bindings: bindings, answers: answers, language: language, line: line, pick: pick)
    }
  }

  /// Runs `work` on a thread of its own and waits for its result. Blocks the calling thread for
  /// up to the fetch's total timeout.
  private func waiting<Result: Sendable>(_ work: @escaping @Sendable () async -> Result?)
    -> Result?
  {
    let done = DispatchSemaphore(value: 0)
    let result = Mutex<Result?>(nil)
    let executor = ThreadExecutor()
    Task(executorPreference: executor) {
      let value = await work()
      result.withLock { $0 = value }
      done.signal()
    }
    done.wait()
    return result.withLock { $0 }
  }

  /// One reply for `url`: from the cache, or fetched (following checked redirects) and kept
  /// when its status is 200; nil with a warning when there is none.
  func fetch(_ url: String, headers: HTTPHeaders) async -> TransportResponse? {
    let key = url + "\n" + headers.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    let now = clock.monotonicTime()
    if let kept = cache.withLock({ $0.reply(key, now: now) }) { return kept }
    let request = TransportRequest(
      url: url, headers: headers, idleTimeout: configuration.idleTimeout,
      totalTimeout: configuration.totalTimeout, followsRedirects: true,
      maximumBodyBytes: configuration.maximumBodyBytes,
      targetPolicy: TargetPolicy(allowsPrivateTargets: configuration.allowsPrivateHosts))
    let transport = self.transport.withLock { kept in
      if let kept { return kept }
      // Through the proxies of the environment (`HTTPS_PROXY`, `NO_PROXY` …), as curl would.
      let made = SocketTransport(
        caFile: configuration.caFile,
        proxies: ProxySettings(environment: ProcessInfo.processInfo.environment))
      kept = made
      return made
    }
    let response: TransportResponse
    do {
      response = try await withTimeout(configuration.totalTimeout + 1) {
        try await transport.send(request)
      }
    } catch {
      warn("no reply from \(Self.display(url)): \(error)")
      return nil
    }
    guard response.status == 200 else {
      warn("\(Self.display(url)) answered with status \(response.status)")
      return nil
    }
    if configuration.cacheSeconds > 0 {
      let expiry = now + .milliseconds(Int64(configuration.cacheSeconds * 1000))
      cache.withLock { $0.keep(response, for: key, until: expiry, limit: configuration.cacheBytes) }
    }
    return response
  }

  /// The URL without its query (which may hold a key), for warnings.
  static func display(_ url: String) -> String {
    TransportRequest(url: url).displayURL
  }

  /// Runs `work`, giving up after `seconds` even when a transport does not (the
  /// transports enforce their own timeouts; this is the backstop).
  private func withTimeout<T: Sendable>(
    _ seconds: Double, _ work: @escaping @Sendable () async throws -> T
  ) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
      group.addTask { try await work() }
      group.addTask {
        try await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
        return nil
      }
      defer { group.cancelAll() }
      guard let first = try await group.next(), let value = first else {
        throw TransportError.timedOut
      }
      return value
    }
  }
}

/// What a console rule answers with.
public struct ConsoleAnswer: Sendable, Equatable {
  /// The rows, for the reply's `data` (tables and RSS lists show them).
  public var data: [JSONObject]
  /// The actions, filled and checked, in the real server's order: the definition's, then the
  /// answer line's.
  public var actions: [JSONObject]

  public init(data: [JSONObject], actions: [JSONObject]) {
    self.data = data
    self.actions = actions
  }

  static func make(
    rule: ConsoleDefinition, rows: [JSONObject], bindings: SkillBindings, answers: [String],
    language: String, line: Int, pick: (Int) -> Int
  ) -> ConsoleAnswer? {
    let filled = bindings.adding(rows)
    var actions: [JSONObject] = []
    for action in rule.actions {
      guard let checked = SkillAction.checked(action) else { continue }
      guard let action = SkillAction.fill(checked, from: filled, pick: pick) else { return nil }
      actions.append(action)
    }
    let alternatives = answers.filter { !$0.isEmpty }
    if !alternatives.isEmpty {
      let index = min(max(pick(alternatives.count), 0), alternatives.count - 1)
      guard let expression = filled.fill(alternatives[index]) else { return nil }
      actions.append([
        "type": "answer", "language": .string(language), "line": .int(line),
        "expression": .string(expression),
      ])
    }
    return ConsoleAnswer(data: rows, actions: actions)
  }
}

/// Successful replies by URL and request headers, each until its expiry, within a byte budget
/// (the oldest go first).
struct ReplyCache: Sendable {
  private var entries: [String: (response: TransportResponse, expiry: Duration)] = [:]
  private var order: [String] = []
  private var bytes = 0

  func reply(_ key: String, now: Duration) -> TransportResponse? {
    guard let entry = entries[key], entry.expiry > now else { return nil }
    return entry.response
  }

  mutating func keep(
    _ response: TransportResponse, for key: String, until expiry: Duration, limit: Int
  ) {
    guard response.body.count <= limit else { return }
    remove(key)
    while bytes + response.body.count > limit, let oldest = order.first { remove(oldest) }
    entries[key] = (response, expiry)
    order.append(key)
    bytes += response.body.count
  }

  private mutating func remove(_ key: String) {
    guard let entry = entries.removeValue(forKey: key) else { return }
    bytes -= entry.response.body.count
    order.removeAll { $0 == key }
  }
}

/// Runs tasks on a thread of its own, so that a caller blocking a thread of the shared pool to
/// wait for them cannot starve them.
final class ThreadExecutor: TaskExecutor {
  private let queue = DispatchQueue(label: "susi.console")

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let executor = asUnownedTaskExecutor()
    queue.async { job.runSynchronously(on: executor) }
  }
}
