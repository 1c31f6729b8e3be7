public import SusiTLS
import Synchronization

/// The certificate and key an HTTPS server presents, re-read on demand (`reload()`, on
/// `SIGHUP`): connections that are open keep the certificate they started with, new ones get
/// the new one, and nothing is dropped.
///
/// ```swift
/// let tls = try HTTPServerTLS(certificateFile: "cert.pem", keyFile: "key.pem")
/// let server = HTTPServer(configuration: .init(port: 8443, tls: tls), handler: handler)
/// ```
public final class HTTPServerTLS: Sendable {
  /// The PEM certificate chain, the server's own certificate first.
  public let certificateFile: String
  /// The PEM private key; it must be readable by its owner only.
  public let keyFile: String
  private let current: Mutex<TLSContext>

  /// Reads both files; throws a `TLSSetupError` naming the file when one is missing, not PEM,
  /// readable by others, or the key does not match.
  public init(certificateFile: String, keyFile: String) throws(TLSSetupError) {
    self.certificateFile = certificateFile
    self.keyFile = keyFile
    current = Mutex(try TLSContext.server(certificateFile: certificateFile, keyFile: keyFile))
  }

  /// Reads the files again and uses them for new connections; on failure keeps the ones in use
  /// and throws.
  public func reload() throws(TLSSetupError) {
    let context = try TLSContext.server(certificateFile: certificateFile, keyFile: keyFile)
    current.withLock { $0 = context }
  }

  /// The context for a new connection.
  var context: TLSContext { current.withLock { $0 } }
}
