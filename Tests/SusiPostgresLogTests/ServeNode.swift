import SusiHTTPTesting
import SusiTesting
import Testing

extension SusiBinary {
  /// Starts `susi serve` on a free loopback port with `arguments` (a node of a test's fleet);
  /// the process and the port it printed.
  func startServeNode(_ arguments: [String], environment: [String: String]) async throws -> (
    SusiProcess, Int
  ) {
    let server = try start(["serve", "--port", "0"] + arguments, environment: environment)
    let url = try await onThread { try server.nextLine() } ?? ""
    let port = try #require(url.split(separator: ":").last.flatMap { Int($0) }, "printed: \(url)")
    return (server, port)
  }
}
