import SusiHTTPTypes

/// Which proxy a request goes through, read from the environment as curl reads it:
/// `http_proxy` for `http://` (lower case only: a web server may set `HTTP_PROXY` from a
/// request's `Proxy:` header), `HTTPS_PROXY` or `https_proxy` for `https://`, and `NO_PROXY` or
/// `no_proxy` for the hosts reached directly.
///
/// Plain requests go to the proxy with the absolute URL; `https://` goes through a `CONNECT`
/// tunnel, with TLS end to end. Credentials in the proxy URL (`http://user:pass@proxy:3128`)
/// are sent as `Proxy-Authorization: Basic` and never appear in a message.
///
/// ```swift
/// let transport = SocketTransport(proxies: ProxySettings(environment: ProcessInfo.processInfo.environment))
/// ```
public struct ProxySettings: Sendable, Equatable {
  /// A proxy server: where to connect, and the credentials to send.
  public struct Proxy: Sendable, Equatable {
    public var host: String
    public var port: Int
    /// `Basic …`, for `Proxy-Authorization`; nil without credentials. Never printed.
    var authorization: String?

    /// `host:port`, for messages (never the credentials).
    public var display: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Parses `http://[user:password@]host[:port]` (or `host:port`; the port defaults to
    /// 1080 as curl's does); nil when it is not such a URL.
    public init?(_ text: String) {
      var rest = Substring(text.trimmingSpaces())
      if rest.lowercased().hasPrefix("http://") {
        rest = rest.dropFirst(7)
      } else if rest.contains("://") {
        return nil
      }
      if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
      var authorization: String?
      if let at = rest.lastIndex(of: "@") {
        let credentials = String(rest[..<at]).removingPercentEncoding()
        authorization = "Basic " + Base64.encode(Array(credentials.utf8))
        rest = rest[rest.index(after: at)...]
      }
      guard let parsed = HTTPURL("http://" + rest) else { return nil }
      host = parsed.host
      let explicitPort = rest.hasSuffix(":\(parsed.port)") || rest.contains("]:")
      port = explicitPort ? parsed.port : 1080
      self.authorization = authorization
    }
  }

  /// The proxy for `http://`, nil = direct.
  public var http: Proxy?
  /// The proxy for `https://` (through `CONNECT`), nil = direct.
  public var https: Proxy?
  /// `NO_PROXY` entries, lower-cased: host names (matching subdomains too), addresses, or `*`.
  public var exclusions: [String]

  /// No proxy at all.
  public init(http: Proxy? = nil, https: Proxy? = nil, exclusions: [String] = []) {
    self.http = http
    self.https = https
    self.exclusions = exclusions.map { $0.lowercased() }
  }

  /// The settings the environment gives, as curl reads them.
  public init(environment: [String: String]) {
    func value(_ names: String...) -> String? {
      for name in names {
        if let value = environment[name], !value.trimmingSpaces().isEmpty { return value }
      }
      return nil
    }
    self.init(
      http: value("http_proxy").flatMap(Proxy.init),
      https: value("https_proxy", "HTTPS_PROXY").flatMap(Proxy.init),
      exclusions: (value("no_proxy", "NO_PROXY") ?? "").split(separator: ",").map {
        String($0).trimmingSpaces()
      }.filter { !$0.isEmpty })
  }

  /// The proxy for `url`, or nil to connect directly.
  func proxy(for url: HTTPURL) -> Proxy? {
    guard let proxy = url.isSecure ? https : http else { return nil }
    return bypasses(url.host) ? nil : proxy
  }

  /// Whether `host` is reached directly: `*`, the host itself, or a domain it is in.
  func bypasses(_ host: String) -> Bool {
    exclusions.contains { entry in
      var entry = entry
      if entry == "*" { return true }
      if entry.hasPrefix("[") && entry.hasSuffix("]") {
        entry = String(entry.dropFirst().dropLast())
      }
      if entry.hasPrefix(".") { entry.removeFirst() }
      return host == entry || host.hasSuffix("." + entry)
    }
  }
}

/// Standard Base64 with padding, for `Proxy-Authorization`.
enum Base64 {
  private static let alphabet = Array(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

  static func encode(_ bytes: [UInt8]) -> String {
    var out: [UInt8] = []
    var index = 0
    while index < bytes.count {
      let a = UInt32(bytes[index])
      let b = index + 1 < bytes.count ? UInt32(bytes[index + 1]) : 0
      let c = index + 2 < bytes.count ? UInt32(bytes[index + 2]) : 0
      let triple = a << 16 | b << 8 | c
      out.append(alphabet[Int(triple >> 18 & 63)])
      out.append(alphabet[Int(triple >> 12 & 63)])
      out.append(index + 1 < bytes.count ? alphabet[Int(triple >> 6 & 63)] : UInt8(ascii: "="))
      out.append(index + 2 < bytes.count ? alphabet[Int(triple & 63)] : UInt8(ascii: "="))
      index += 3
    }
    return String(decoding: out, as: UTF8.self)
  }
}

extension String {
  /// `%XX` escapes decoded (as in the user part of a URL); invalid escapes kept as they are.
  fileprivate func removingPercentEncoding() -> String {
    var bytes: [UInt8] = []
    let utf8 = Array(self.utf8)
    var index = 0
    while index < utf8.count {
      if utf8[index] == UInt8(ascii: "%"), index + 2 < utf8.count,
        let value = UInt8(String(decoding: utf8[index + 1...index + 2], as: UTF8.self), radix: 16)
      {
        bytes.append(value)
        index += 3
      } else {
        bytes.append(utf8[index])
        index += 1
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
