public import SusiApplication
import SusiCommandLine
public import SusiHTTPServer

extension WebhookService {
  /// Runs `handler` on `host:port` until SIGINT or SIGTERM, for `susi serve` and `susi web`:
  /// prints the base URL (`announce` may turn it into more, or act once the port is known),
  /// then stops the HTTP server, this service and `app`, in that order. Returns the exit status.
  public func serveUntilSignalled(
    _ handler: any HTTPHandler, host: String, port: Int, app: SusiApp, command: String,
    announce: (_ baseURL: String, _ port: Int) -> String = { url, _ in url }
  ) async -> Int32 {
    let server = HTTPServer(configuration: .init(host: host, port: port), handler: handler)
    let bound: Int
    do {
      bound = try server.start()
    } catch {
      await shutdown()
      await app.stop()
      StandardStream.error.line("susi \(command): cannot listen on \(host):\(port): \(error)")
      return ExitCode.unavailable
    }
    // Caught before the address is printed: whoever reads it may stop us at once.
    let signals = ShutdownSignal()
    let shownHost = host.contains(":") ? "[\(host)]" : host
    StandardStream.output.line(announce("http://\(shownHost):\(bound)", bound))
    _ = await signals.wait()
    StandardStream.error.line("susi \(command): stopping")
    await server.shutdown()
    await shutdown()
    await app.stop()
    return ExitCode.success
  }
}
