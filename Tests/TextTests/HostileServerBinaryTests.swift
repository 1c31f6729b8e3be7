import Foundation
import SusiHTTPServer
import SusiTesting
import Synchronization
import Testing

/// `susi ask` against a server whose answers carry escape sequences: none reaches the terminal,
/// on standard output or standard error, whichever path prints the text.
@Suite struct HostileServerBinaryTests {
  /// A SUSI server on loopback whose every chat answer hides escape sequences in an answer
  /// text and in an image URL that is not http (which the core refuses, quoting the URL).
  final class HostileServer: HTTPHandler {
    static let hostile = #"\u001b]52;c;ZXZpbA==\u0007\u001b[2J\u001b]0;owned\u0007"#
    let server: HTTPServer
    let port: Int

    init() throws {
      let box = Box()
      server = HTTPServer(configuration: HTTPServer.Configuration(), handler: box)
      port = try server.start()
      box.target.withLock { $0 = self }
    }

    func handle(_ request: HTTPRequest) async -> HTTPResponse {
      let body = """
        {"query":"hi","answers":[{"data":[],"metadata":{"count":2},"actions":[\
        {"type":"answer","expression":"ok\(Self.hostile)"},\
        {"type":"image_show","url":"file:///x\(Self.hostile)"}]}]}
        """
      return HTTPResponse(status: 200, contentType: "application/json", body: body)
    }

    final class Box: HTTPHandler {
      let target = Mutex<HostileServer?>(nil)
      func handle(_ request: HTTPRequest) async -> HTTPResponse {
        guard let target = target.withLock({ $0 }) else { return HTTPResponse(status: 503) }
        return await target.handle(request)
      }
    }
  }

  @Test func anAnswerAndARefusedImageURLPrintNoEscapeSequence() async throws {
    let susi = try SusiBinary.built()
    let folder = FileManagerTestFolder()
    defer { try? FileManager.default.removeItem(atPath: folder.path) }
    let server = try HostileServer()
    let output = try await susi.run(
      [
        "ask", "hi", "--server", "http://127.0.0.1:\(server.port)", "--state-dir",
        folder.path + "/state",
      ], environment: SusiBinary.isolatedEnvironment(folder.path), timeout: 60)
    await server.server.shutdown()
    #expect(output.stdout.contains("ok"), "\(output.stdout) \(output.stderr)")
    for stream in [output.stdout, output.stderr] {
      #expect(!stream.contains("\u{1B}]"))
      #expect(!stream.contains("\u{1B}[2J"))
      #expect(!stream.contains("\u{07}"))
    }
  }
}
