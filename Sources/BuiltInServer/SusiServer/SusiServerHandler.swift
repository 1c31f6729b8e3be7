import Foundation
public import SusiHTTPServer
import SusiHTTPTypes
import SusiJSON

/// The embedded SUSI server as an `HTTPHandler`: routes each request to its endpoint and
/// shapes the reply (pretty JSON with `session`, JSONP, Jetty-style error pages).
///
/// GET and POST are treated alike; parameters come from the query string and form bodies.
public final class SusiServerHandler: HTTPHandler {
  let context: ServerContext

  /// Loads the skills and the saved state named by `configuration`.
  ///
  /// Throws when the saved state cannot be read (a damaged file is never silently replaced).
  public init(configuration: ServerConfiguration) throws {
    context = try ServerContext(configuration: configuration)
  }

  /// Problems met while loading skills and web content, one line each (files skipped,
  /// intents ignored), for the operator.
  public var loadWarnings: [String] {
    context.library.warnings + (context.web.problem.map { [$0] } ?? [])
  }

  /// Whether the skills came from the skill index, unchanged since a start that read them all
  /// (and reported their warnings) before.
  public var skillsUnchangedSinceIndexed: Bool { context.library.loadedFromIndex }

  /// The load warnings in one line, with where to see them all; nil when there are none.
  public var loadSummary: String? {
    let warnings = loadWarnings
    guard !warnings.isEmpty else { return nil }
    let folder = context.library.dataDirectory.path
    return
      "the built-in server's skills gave \(warnings.count) load warning\(warnings.count == 1 ? "" : "s") "
      + "(intents dropped, rules that cannot run here); 'susi server --check-skills \(folder)' lists them"
  }

  /// The loaded skills.
  public var library: SkillLibrary { context.library }

  /// The minimum role an endpoint requires.
  enum Role {
    case anonymous
    case user
  }

  enum Route {
    case json(Role, @Sendable (EndpointRequest) throws(APIError) -> JSONReply)
    case raw(@Sendable (EndpointRequest) -> HTTPResponse)
  }

  static let routes: [String: Route] = [
    "/aaa/login.json": .json(.anonymous, LoginEndpoint.handle),
    "/aaa/signup.json": .json(.anonymous, SignupEndpoint.handle),
    "/aaa/changeUserSettings.json": .json(.user, SettingsEndpoints.change),
    "/aaa/listUserSettings.json": .json(.user, SettingsEndpoints.list),
    "/aaa/recoverpassword.json": .json(.anonymous, PasswordRecoveryEndpoint.handle),
    "/aaa/addNewDevice.json": .json(.user, DeviceEndpoints.add),
    "/aaa/listUserDevices.json": .json(.user, DeviceEndpoints.list),
    "/cms/getGroups.json": .json(.anonymous, GroupsEndpoint.handle),
    "/cms/getSkillList.json": .json(.anonymous, SkillListEndpoint.handle),
    "/cms/getSkillMetadata.json": .json(.anonymous, SkillMetadataEndpoint.handle),
    "/cms/getSkillRating.json": .json(.anonymous, RatingEndpoints.skillRating),
    "/cms/fiveStarRateSkill.json": .json(.user, RatingEndpoints.rate),
    "/cms/getRatingByUser.json": .json(.user, RatingEndpoints.byUser),
    "/susi/chat.json": .json(.anonymous, ChatEndpoint.handle),
    "/susi/memory.json": .json(.anonymous, MemoryEndpoint.handle),
    "/cms/getImage.png": .raw(ImageEndpoint.handle),
    "/duckduckgo/": .raw(WebSearchEndpoint.handle),
    "/duckduckgo": .raw(WebSearchEndpoint.handle),
  ]

  /// Answers one request.
  public func handle(_ request: HTTPRequest) async -> HTTPResponse {
    respond(request)
  }

  /// The synchronous core of `handle`, for tests and benchmarks.
  func respond(_ request: HTTPRequest) -> HTTPResponse {
    let path = request.path
    let accept = request.headers["Accept"]
    switch request.method {
    case .get, .post, .head: break
    case .options:
      var headers = HTTPHeaders()
      headers.add("Access-Control-Allow-Origin", "*")
      headers.add("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
      headers.add("Access-Control-Allow-Headers", "Content-Type")
      headers.add("Allow", "GET, HEAD, POST, OPTIONS")
      return HTTPResponse(status: 200, headers: headers)
    default:
      return ReplyWriter.errorPage(
        APIError(405, "HTTP method \(request.method) is not supported by this URL"), path: path,
        accept: accept)
    }
    let parameters = RequestParameters(request: request)
    let now = context.now
    let identity = context.readState { state in
      IdentityResolver.resolve(
        request, parameters: parameters, tokens: state.tokens, now: now,
        trustedProxies: context.configuration.trustedProxies)
    }
    let endpointRequest = EndpointRequest(
      http: request, parameters: parameters, identity: identity, context: context, now: now)

    let route: Route
    if let known = Self.routes[path] {
      route = known
    } else if path.hasPrefix("/pages/") {
      let name = String(path.dropFirst("/pages/".count))
      route = .raw { StaticFileEndpoint.page($0, name: name) }
    } else if let prefix = ["/i/", "/duckduckgo/i/"].first(where: path.hasPrefix) {
      let name = String(path.dropFirst(prefix.count))
      route = .raw { StaticFileEndpoint.icon($0, name: name) }
    } else {
      return ReplyWriter.errorPage(APIError(404, "Not Found"), path: path, accept: accept)
    }

    switch route {
    case .raw(let handler):
      return handler(endpointRequest)
    case .json(let role, let handler):
      do throws(APIError) {
        if role == .user && identity.isAnonymous { throw APIError.notLoggedIn }
        let reply = try handler(endpointRequest)
        var object = reply.object
        object["session"] = identity.session
        var response = ReplyWriter.json(object, parameters: parameters)
        for (name, value) in reply.headers { response.headers.add(name, value) }
        return response
      } catch {
        return ReplyWriter.errorPage(error, path: path, accept: accept)
      }
    }
  }
}
