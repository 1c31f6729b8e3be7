import SusiHTTP

#if canImport(FoundationNetworking)
  import Foundation
  import FoundationNetworking
#else
  import Foundation
#endif

/// One outbound delivery: a signed POST.
public struct DeliveryRequest: Sendable, Equatable {
  public var url: String
  public var headers: HTTPHeaders
  public var body: [UInt8]
  /// Longest wait for the whole exchange, in seconds.
  public var timeout: Double

  public init(url: String, headers: HTTPHeaders, body: [UInt8], timeout: Double) {
    self.url = url
    self.headers = headers
    self.body = body
    self.timeout = timeout
  }
}

/// What a subscriber answered.
public struct DeliveryResponse: Sendable, Equatable {
  public var status: Int
  public var headers: HTTPHeaders
  public init(status: Int, headers: HTTPHeaders = [:]) {
    self.status = status
    self.headers = headers
  }
}

/// Sends deliveries. Injected, so tests answer from memory; an error thrown means the attempt
/// failed (no connection, timeout, broken reply) and will be retried.
public protocol DeliveryTransport: Sendable {
  func post(_ request: DeliveryRequest) async throws -> DeliveryResponse
}

/// Sends deliveries with URLSession, one session per subscriber so a slow one cannot take the
/// connections another needs. Redirects are never followed: a 3xx is an answer, and a failure.
public final class URLSessionDeliveryTransport: DeliveryTransport {
  private let session: URLSession

  public init() {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpCookieStorage = nil
    configuration.urlCache = nil
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.httpMaximumConnectionsPerHost = 1
    session = URLSession(
      configuration: configuration, delegate: RedirectRefuser(), delegateQueue: nil)
  }

  deinit { session.invalidateAndCancel() }

  public func post(_ request: DeliveryRequest) async throws -> DeliveryResponse {
    guard let url = URL(string: request.url) else { throw URLError(.badURL) }
    var urlRequest = URLRequest(url: url, timeoutInterval: request.timeout)
    urlRequest.httpMethod = "POST"
    for field in request.headers {
      urlRequest.addValue(field.value, forHTTPHeaderField: field.name)
    }
    urlRequest.httpBody = Data(request.body)
    let (_, response) = try await session.data(for: urlRequest)
    guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
    var headers = HTTPHeaders()
    for (name, value) in http.allHeaderFields {
      if let name = name as? String, let value = value as? String { headers.add(name, value) }
    }
    return DeliveryResponse(status: http.statusCode, headers: headers)
  }
}

/// Answers every redirect with "do not follow", so the 3xx itself comes back.
private final class RedirectRefuser: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
  func urlSession(
    _ session: URLSession, task: URLSessionTask,
    willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
  ) {
    completionHandler(nil)
  }
}
