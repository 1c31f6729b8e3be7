public import SusiHTTPServer
public import SusiOperatorLog
import SusiTLS

#if canImport(Glibc)
  import Glibc
#endif

/// What a command that listens (`susi serve`, `susi web`) reads from its command line: the
/// port, the TLS files and the operators' log.
public struct ListeningOptions: Sendable {
  public var port: Int
  public var tls: ServingTLSFiles?
  public var log: OperatorLog

  /// The options `invocation` gives (`--port` defaults to `defaultPort`); nil after saying on
  /// standard error, as `susi COMPONENT: …`, why one of them is wrong.
  public static func resolve(_ invocation: Invocation, component: String, defaultPort: Int)
    -> ListeningOptions?
  {
    do throws(UsageError) {
      let port = try invocation.parsed.port(default: defaultPort)
      let tls = try ServingTLSFiles.resolve(invocation.parsed)
      guard let log = OperatorLogOptions.log(invocation, component: component) else { return nil }
      return ListeningOptions(port: port, tls: tls, log: log)
    } catch {
      StandardStream.error.line("susi \(component): \(error.message)")
      return nil
    }
  }
}

extension OptionSpec {
  /// `--port N` (`-p`) of a command that listens, whose default is `port`.
  public static func port(default port: Int) -> OptionSpec {
    OptionSpec(
      .port, short: "-p", value: "N",
      help: "port to listen on; 0 = any free port (default \(port))")
  }
}

extension HTTPServerTLS {
  /// Re-reads the certificate and key on every SIGHUP, for `susi serve`, `susi web` and
  /// `susi server`; a failure is reported and the ones in use stay.
  public func reloadOnHangup(log: OperatorLog) -> SignalCatcher {
    SignalCatcher([SIGHUP]) { _ in
      do throws(TLSSetupError) {
        try self.reload()
        log.info("certificate re-read from \(self.certificateFile)")
      } catch {
        log.warning("kept the certificate in use: \(error.message)")
      }
    }
  }
}
