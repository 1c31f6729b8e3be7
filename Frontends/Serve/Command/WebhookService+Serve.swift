public import SusiApplication
public import SusiCommandLine
public import SusiHTTPServer
import SusiOperatorLog
import SusiStore
import SusiTLS

extension WebhookService {
  /// Runs `handler` on `host` and `listening`'s port until SIGINT or SIGTERM, for `susi serve`
  /// and `susi web`: prints the base URL (`announce` may turn it into more, or act once the port
  /// is known), then stops the HTTP server, this service and `app`, in that order. Returns the
  /// exit status. Every request and what happens on the way goes to `listening`'s log (its
  /// component names the command).
  ///
  /// With its TLS files it speaks only HTTPS and re-reads the certificate and key on SIGHUP (open
  /// connections keep theirs); without, a non-loopback `host` gets a warning.
  public func serveUntilSignalled(
    _ handler: any HTTPHandler, host: String, _ listening: ListeningOptions, app: SusiApp,
    announce: (_ baseURL: String, _ port: Int) -> String = { url, _ in url }
  ) async -> Int32 {
    let (port, log) = (listening.port, listening.log)
    // Stops this service and `app`, says why, and returns `code`.
    func fail(_ message: String, _ code: Int32) async -> Int32 {
      await shutdown()
      await app.stop()
      log.error(message)
      return code
    }
    var tls: HTTPServerTLS?
    if let files = listening.tls {
      do throws(TLSSetupError) {
        tls = try HTTPServerTLS(certificateFile: files.certificate, keyFile: files.key)
      } catch {
        return await fail(error.message, ExitCode.noInput)
      }
    }
    if let warning = ServingTLSFiles.exposureWarning(host: host, tls: tls != nil) {
      log.warning(warning)
    }
    let reloads = tls.map { $0.reloadOnHangup(log: log) }
    defer { reloads?.cancel() }
    let server = HTTPServer(
      configuration: .init(host: host, port: port, tls: tls),
      handler: RequestLogging(handler, log: log))
    let bound: Int
    do {
      bound = try server.start()
    } catch {
      return await fail("cannot listen on \(host):\(port): \(error)", ExitCode.unavailable)
    }
    // Caught before the address is printed: whoever reads it may stop us at once.
    let signals = ShutdownSignal()
    let shownHost = host.contains(":") ? "[\(host)]" : host
    let scheme = tls == nil ? "http" : "https"
    let url = "\(scheme)://\(shownHost):\(bound)"
    StandardStream.output.line(announce(url, bound))
    log.info("listening", ["url": .string(url), "lastSeq": .int(await app.store.lastSeq)])
    let signal = await signals.wait()
    log.info("stopping", ["signal": .int(Int(signal ?? 0))])
    await server.shutdown()
    await shutdown()
    await app.stop()
    return ExitCode.success
  }
}
