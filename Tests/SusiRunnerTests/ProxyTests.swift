import Foundation
import SusiHTTPTesting
import SusiTesting
import Synchronization
import Testing

@testable import SusiHTTPClient

#if canImport(Glibc)
  import Glibc
#endif

/// Requests through an HTTP proxy as curl makes them: plain ones in absolute form, `https://`
/// through a `CONNECT` tunnel with TLS end to end, credentials sent and never shown, and the
/// environment read as curl reads it.
@Suite(.hangLimit)
struct ProxyTests {
  /// A proxy on 127.0.0.1: answers plain requests itself (recording the request line), and
  /// for `CONNECT` either opens the tunnel to the address asked for or, when `tunnels` is
  /// false, refuses with 405.
  final class TestProxy: Sendable {
    let listener: SilentServer
    let tunnels: Bool
    private let seen = Mutex<[String]>([])

    init(tunnels: Bool) throws {
      listener = try #require(SilentServer())
      self.tunnels = tunnels
      Thread { [self] in acceptLoop() }.start()
    }

    var url: String { "http://127.0.0.1:\(listener.port)" }
    /// The request heads received, in order.
    var heads: [String] { seen.withLock { $0 } }

    private func acceptLoop() {
      while true {
        let client = accept(listener.socket, nil, nil)
        guard client >= 0 else { return }
        Thread { [self] in serve(client) }.start()
      }
    }

    private func serve(_ client: Int32) {
      var data: [UInt8] = []
      var byte: UInt8 = 0
      while !data.suffix(4).elementsEqual([13, 10, 13, 10]), read(client, &byte, 1) == 1 {
        data.append(byte)
      }
      let head = String(decoding: data, as: UTF8.self)
      seen.withLock { $0.append(head) }
      guard head.hasPrefix("CONNECT ") else {
        reply(client, "HTTP/1.1 200 OK\r\nContent-Length: 9\r\nConnection: close\r\n\r\nvia proxy")
        close(client)
        return
      }
      guard tunnels else {
        reply(client, "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
        close(client)
        return
      }
      // CONNECT localhost:PORT: the tunnel goes to 127.0.0.1:PORT.
      let authority = head.split(separator: " ")[1]
      let port = UInt16(authority.split(separator: ":").last ?? "") ?? 0
      let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_port = port.bigEndian
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
      guard connected == 0 else {
        reply(client, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
        close(client)
        return
      }
      reply(client, "HTTP/1.1 200 Connection established\r\n\r\n")
      Thread { Self.pipe(from: upstream, to: client) }.start()
      Self.pipe(from: client, to: upstream)
    }

    private func reply(_ client: Int32, _ text: String) {
      let bytes = Array(text.utf8)
      _ = write(client, bytes, bytes.count)
    }

    private static func pipe(from source: Int32, to target: Int32) {
      var buffer = [UInt8](repeating: 0, count: 16 * 1024)
      while true {
        let n = read(source, &buffer, buffer.count)
        guard n > 0, write(target, buffer, n) == n else { break }
      }
      shutdown(target, Int32(SHUT_WR))
    }
  }

  @Test func aPlainRequestGoesToTheProxyInAbsoluteFormWithItsCredentials() async throws {
    let proxy = try TestProxy(tunnels: true)
    let settings = ProxySettings(environment: [
      "http_proxy": "http://ann:s%40cret@127.0.0.1:\(proxy.listener.port)"
    ])
    let response = try await SocketTransport(proxies: settings).send(
      TransportRequest(url: "http://origin.example:8080/page?q=1"))
    #expect(response.body == Array("via proxy".utf8))
    let head = try #require(proxy.heads.first)
    #expect(head.hasPrefix("GET http://origin.example:8080/page?q=1 HTTP/1.1\r\n"))
    #expect(head.contains("\r\nHost: origin.example:8080\r\n"))
    // ann:s@cret
    #expect(head.contains("\r\nProxy-Authorization: Basic YW5uOnNAY3JldA==\r\n"))
  }

  @Test func httpsGoesThroughACONNECTTunnelWithTLSEndToEnd() async throws {
    let proxy = try TestProxy(tunnels: true)
    let server = try TransportContractTests.server(.tls)
    defer { server.stop() }
    let settings = ProxySettings(environment: ["HTTPS_PROXY": proxy.url])
    let transport = SocketTransport(caFile: TestTLS.caFile, proxies: settings)
    for _ in 0..<2 {
      let response = try await transport.send(TransportRequest(url: server.baseURL + "/ok"))
      #expect(response.body == Array(#"{"a":1}"#.utf8))
    }
    #expect(proxy.heads.first?.hasPrefix("CONNECT localhost:\(server.port) HTTP/1.1\r\n") == true)
    // The proxy saw the tunnel requests only, never the request inside.
    #expect(proxy.heads.allSatisfy { $0.hasPrefix("CONNECT ") })
    #expect(server.requests.count == 2)
  }

  @Test func aProxyThatRefusesTunnelsIsNamedWithoutItsCredentials() async throws {
    let proxy = try TestProxy(tunnels: false)
    let settings = ProxySettings(environment: [
      "https_proxy": "http://proxyuser:topsecret@127.0.0.1:\(proxy.listener.port)"
    ])
    let error = await #expect(throws: TransportError.self) {
      try await SocketTransport(proxies: settings).send(
        TransportRequest(url: "https://localhost:9/"))
    }
    let message = "\(try #require(error))"
    #expect(message.contains("refused a tunnel to localhost:9 (HTTP 405)"), "\(message)")
    #expect(!message.contains("topsecret") && !message.contains("proxyuser"))
  }

  @Test func noProxyAndTheEnvironmentAreReadAsCurlReadsThem() throws {
    let settings = ProxySettings(environment: [
      "HTTP_PROXY": "http://ignored:1", "HTTPS_PROXY": "proxy.example:3128",
      "no_proxy": "internal.example, .corp.example,10.0.0.1",
    ])
    // Upper-case HTTP_PROXY is ignored, as curl ignores it.
    #expect(settings.http == nil)
    #expect(settings.https?.display == "proxy.example:3128")
    let direct = ["https://internal.example/", "https://a.corp.example/", "https://10.0.0.1/"]
    for url in direct { #expect(settings.proxy(for: try #require(HTTPURL(url))) == nil, "\(url)") }
    #expect(settings.proxy(for: try #require(HTTPURL("https://example.org/"))) != nil)
    #expect(settings.proxy(for: try #require(HTTPURL("https://notinternal.example/"))) != nil)
    #expect(
      ProxySettings(environment: ["https_proxy": "p:1", "NO_PROXY": "*"]).proxy(
        for: try #require(HTTPURL("https://anything.example/"))) == nil)
    #expect(ProxySettings.Proxy("proxy.example")?.port == 1080)
  }
}
