/// The address a server binds for `--host`.
public enum BindAddress {
  /// `localhost` as the loopback address: the servers bind numeric addresses only, and
  /// `localhost` is what people type.
  public static func numeric(_ host: String) -> String {
    host.lowercased() == "localhost" ? "127.0.0.1" : host
  }
}

/// `--tls-cert FILE --tls-key FILE`: the certificate and key a server presents, so it speaks
/// only HTTPS.
public struct ServingTLSFiles: Sendable, Equatable {
  /// The PEM certificate chain, the server's own certificate first.
  public var certificate: String
  /// The PEM private key, readable by its owner only.
  public var key: String

  public init(certificate: String, key: String) {
    self.certificate = certificate
    self.key = key
  }

  /// The options of every command that listens (`susi server`, `susi serve`, `susi web`).
  public static let specs: [OptionSpec] = [
    OptionSpec(
      .tlsCertificate, value: "FILE",
      help: "serve HTTPS only, with the PEM certificate chain in FILE (needs --tls-key)"),
    OptionSpec(
      .tlsKey, value: "FILE",
      help: "the PEM private key for --tls-cert (mode 0600; re-read with the certificate on SIGHUP)"
    ),
  ]

  /// Both files from the command line, nil when neither is given; a usage error when only one
  /// is.
  public static func resolve(_ parsed: ParsedCommandLine) throws(UsageError) -> ServingTLSFiles? {
    switch (parsed.value(.tlsCertificate), parsed.value(.tlsKey)) {
    case (nil, nil): return nil
    case (let certificate?, let key?):
      guard !certificate.isEmpty, !key.isEmpty else {
        throw UsageError("--tls-cert and --tls-key take file names")
      }
      return ServingTLSFiles(certificate: certificate, key: key)
    case (nil, _): throw UsageError("--tls-key needs --tls-cert FILE (the certificate) as well")
    case (_, nil): throw UsageError("--tls-cert needs --tls-key FILE (the private key) as well")
    }
  }

  /// A warning for a server on `host` without TLS that others can reach, or nil when `host` is
  /// loopback or TLS is on.
  public static func exposureWarning(host: String, tls: Bool) -> String? {
    guard !tls else { return nil }
    let loopback = host == "::1" || host.hasPrefix("127.")
    guard !loopback else { return nil }
    return
      "listening on \(host) without TLS: anyone on the network path can read and change what"
      + " is sent, passwords and keys included; give --tls-cert FILE --tls-key FILE, or bind"
      + " 127.0.0.1 behind a TLS proxy"
  }
}
