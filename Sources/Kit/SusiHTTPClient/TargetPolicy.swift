/// Which addresses a request to a URL that came from outside (a link to preview, an image, a
/// webhook subscriber) may reach: the guard against server-side request forgery.
///
/// By default loopback, private, shared (CGNAT), link-local (cloud metadata at
/// 169.254.169.254), unique-local, multicast, unspecified and reserved addresses are refused.
/// Every address the host name resolves to is checked, after resolution, so encoded spellings
/// (`2130706433`, `0x7f.1`, `[::ffff:127.0.0.1]`) and names that point inside are caught alike;
/// the transport then connects to an address that was checked, never resolving the name again.
///
/// ```swift
/// let policy = TargetPolicy(allowedOrigins: ["http://127.0.0.1:4000"])
/// let addresses = try policy.check("http://example.com/hook")  // throws TransportError.refused
/// ```
public struct TargetPolicy: Sendable, Equatable {
  /// Lets every address through (`--allow-private-targets`, for local testing).
  public var allowsPrivateTargets: Bool
  /// Origins reached whatever their address (`http://127.0.0.1:4000`, as `origin(of:)` spells
  /// them): the configured SUSI server's own, so its pages still preview.
  public private(set) var allowedOrigins: Set<String>

  /// A policy that refuses internal addresses except on `allowedOrigins`.
  public init(allowsPrivateTargets: Bool = false, allowedOrigins: [String] = []) {
    self.allowsPrivateTargets = allowsPrivateTargets
    self.allowedOrigins = Set(allowedOrigins.compactMap(Self.origin(of:)))
  }

  /// Adds the origin of `url` to the allowed ones (ignored when `url` is not http(s)).
  public mutating func allow(originOf url: String) {
    if let origin = Self.origin(of: url) { allowedOrigins.insert(origin) }
  }

  /// `scheme://host:port` of an http(s) URL, lower-cased with the default port spelled out, or
  /// nil.
  public static func origin(of url: String) -> String? {
    guard let parsed = HTTPURL(url) else { return nil }
    return parsed.origin
  }

  /// Whether `url` may go anywhere without an address check (its origin is allowed, or the
  /// policy allows private targets).
  public func isExempt(_ url: String) -> Bool {
    allowsPrivateTargets || Self.origin(of: url).map(allowedOrigins.contains) == true
  }

  /// Resolves `url`'s host and checks every address: the addresses to connect to, or
  /// `.refused` naming the URL and the kind of address, `.cannotConnect` for an unknown host,
  /// `.invalidURL` for a URL that is not http(s).
  public func check(_ url: String) throws(TransportError) -> [SocketAddress] {
    guard let parsed = HTTPURL(url) else { throw .invalidURL("not an absolute http(s) URL") }
    let addresses = try SocketAddress.resolve(host: parsed.host, port: parsed.port)
    if isExempt(url) { return addresses }
    for address in addresses {
      if let kind = address.internalKind {
        throw .refused(
          "\(parsed.display) points at a \(kind) address (\(address.text)), which is refused;"
            + " --allow-private-targets (SUSI_ALLOW_PRIVATE_TARGETS=1) allows it for local testing"
        )
      }
    }
    return addresses
  }
}
