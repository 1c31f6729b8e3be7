import SusiAccess
import SusiCore
import SusiDelivery
import SusiHTTPServer
import SusiHTTPTypes

/// One route of the webhook frontend: the method and pattern it answers (`{name}` matches one
/// non-empty path segment; the pattern is also the `route` label of metrics) and what answers
/// it. `WebhookRoute.all` is every route, in one place.
struct WebhookRoute: Sendable {
  /// Throws only `WebhookError`s (a closure cannot declare that without repeating it per row).
  typealias Answer = @Sendable (WebhookHandler, Call) async throws -> HTTPResponse

  /// A request whose caller is known, with the values of the pattern's `{…}` segments.
  struct Call {
    var request: HTTPRequest
    var principal: WebhookHandler.Principal
    var parameters: [String]

    var caller: Caller { principal.caller }
    var holds: @Sendable (Privilege) -> Bool { principal.holds }
  }

  let method: HTTPMethod
  let pattern: String
  /// False only for `/healthz`, which answers without a key.
  var needsCaller = true
  let answer: Answer

  static let all: [WebhookRoute] =
    [
      .init(method: .post, pattern: "/actions") { try await $0.postAction($1.request, $1.caller) },
      .init(method: .get, pattern: "/state") { try await $0.getState($1.caller) },
      .init(method: .get, pattern: "/events") { try await $0.getEvents($1.request, $1.caller) },
      .init(method: .get, pattern: "/events/stream") {
        try $0.eventStream($1.request, $1.caller, holds: $1.holds)
      },
      .init(method: .get, pattern: "/healthz", needsCaller: false) { h, _ in await h.healthz() },
      .init(method: .get, pattern: "/metrics") { try await $0.getMetrics($1.caller) },
    ]
    + AdminTask.all.compactMap { task in
      task.route.map { route in
        WebhookRoute(method: route.method, pattern: route.pattern) {
          try await $0.administer(task, $1)
        }
      }
    }

  /// The routes without `{…}`, by pattern: the busiest paths are matched straight from the
  /// request target (no percent-decoding, no splitting).
  private static let fixed = Dictionary(grouping: all.filter { !$0.pattern.contains("{") }) {
    Substring($0.pattern)
  }

  /// The routes whose pattern matches the request's path (one per method), with the values of
  /// their `{…}` segments; empty means 404.
  static func matching(_ request: HTTPRequest) -> (routes: [WebhookRoute], parameters: [String]) {
    var target = Substring(request.target)
    if let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) { target = target[..<mark] }
    if let routes = fixed[target] { return (routes, []) }
    let parts = request.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
    for route in all {
      let pattern = route.pattern.split(separator: "/", omittingEmptySubsequences: false)
        .dropFirst()
      guard pattern.count == parts.count else { continue }
      var parameters: [String] = []
      let matches = zip(pattern, parts).allSatisfy { expected, part in
        guard expected.hasPrefix("{") else { return expected == part }
        parameters.append(String(part))
        return !part.isEmpty
      }
      if matches { return (all.filter { $0.pattern == route.pattern }, parameters) }
    }
    return ([], [])
  }
}
