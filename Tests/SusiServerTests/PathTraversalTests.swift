import Foundation
import SusiFiles
import SusiHTTPServer
import SusiHTTPTypes
import Testing

@testable import SusiServer

/// No request can read a file outside the folder its endpoint serves: every endpoint and
/// parameter that names a file, with plain, encoded, doubled, absolute and symlinked forms.
@Suite struct PathTraversalTests {
  static let marker = "TOP-SECRET-\(UUID().uuidString)"

  /// A file outside every served folder, at `folder/a/b/c/secret.txt`, so that a climb in any
  /// one parameter can reach it with the parameters after it as plain names.
  struct Target {
    let folder: URL
    let file: URL

    init() throws {
      folder = try temporaryDirectory()
      let inner = folder.appendingPathComponent("a/b/c")
      try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: true)
      file = inner.appendingPathComponent("secret.txt")
      try Data(PathTraversalTests.marker.utf8).write(to: file)
    }

    /// The forms of a value that climbs out of any folder and ends at `folder/relative`.
    func climbs(to relative: String) -> [String] {
      let absolute = folder.path + (relative.isEmpty ? "" : "/" + relative)
      let climb = String(repeating: "../", count: 40) + absolute.dropFirst()
      return [
        climb,
        absolute,
        climb.replacingOccurrences(of: "/", with: "\\"),
        climb.replacingOccurrences(of: "..", with: "%2e%2e"),
        climb.replacingOccurrences(of: "/", with: "%2f"),
        climb.replacingOccurrences(of: "..", with: "%252e%252e"),
        climb.replacingOccurrences(of: "../", with: "....//"),
        climb.replacingOccurrences(of: "../", with: "..;/"),
        climb + "\0",
      ]
    }
  }

  private func expectNoLeak(
    _ response: HTTPResponse, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(
      !response.text.contains(Self.marker), "leaked through \(what)",
      sourceLocation: sourceLocation)
  }

  @Test func everyImageParameterIsContained() throws {
    let server = try TestServer()
    let target = try Target()
    let legit = [
      ("model", "general"), ("group", "Interests"), ("language", "en"),
      ("image", "images/moon.png"),
    ]
    let real = server.send("/cms/getImage.png", legit)
    #expect(real.status == 200 && real.headers["Content-Type"] == "image/png")
    let fallback = server.send("/cms/getImage.png", [("image", "missing.png")]).body
    #expect(!fallback.isEmpty && fallback != real.body)

    // The climb in one parameter; the parameters after it walk down to the secret file.
    let attacks: [(climbing: String, into: String, rest: [(String, String)])] = [
      ("model", "", [("group", "a"), ("language", "b"), ("image", "c/secret.txt")]),
      ("group", "a", [("model", "general"), ("language", "b"), ("image", "c/secret.txt")]),
      (
        "language", "a/b",
        [("model", "general"), ("group", "Interests"), ("image", "c/secret.txt")]
      ),
      (
        "image", "a/b/c/secret.txt",
        [("model", "general"), ("group", "Interests"), ("language", "en")]
      ),
    ]
    for attack in attacks {
      for value in target.climbs(to: attack.into) {
        let parameters = attack.rest + [(attack.climbing, value)]
        for method in ["GET", "POST"] {
          let response =
            method == "GET"
            ? server.send("/cms/getImage.png", parameters)
            : server.send("/cms/getImage.png", method: "POST", form: parameters)
          let what = "\(method) \(attack.climbing)=\(value)"
          expectNoLeak(response, what)
          #expect(response.body == fallback, "\(what)")
        }
      }
    }
  }

  @Test func staticFilePathsAreContained() throws {
    let server = try TestServer()
    let target = try Target()
    for prefix in ["/pages/", "/i/", "/duckduckgo/i/"] {
      for value in target.climbs(to: "a/b/c/secret.txt") + ["..", "../.."] {
        for encoded in [value, URLEncodedForm.percentEncode(value)] {
          let response = server.handler.respond(
            HTTPRequest(
              method: "GET", target: prefix + encoded, headers: HTTPHeaders([("Host", "x")]),
              body: [], remoteAddress: "203.0.113.7"))
          expectNoLeak(response, prefix + encoded)
          #expect(response.status == 404, "\(prefix)\(encoded)")
        }
      }
    }
    #expect(server.send("/pages/susi.html").status == 200)
    #expect(server.send("/duckduckgo/i/susi.png").status == 200)
  }

  @Test func symbolicLinksOutOfTheTreeAreRefused() throws {
    let target = try Target()
    let data = try dataDirectory(["Tools/en/coin": "::name Coin\nflip\nheads\n"])
    let images = data.appendingPathComponent("models/general/Tools/en/images")
    try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
    try Data([0x89, 0x50, 0x4E, 0x47]).write(to: images.appendingPathComponent("coin.png"))
    try FileManager.default.createSymbolicLink(
      at: images.appendingPathComponent("leak.png"), withDestinationURL: target.file)
    try FileManager.default.createSymbolicLink(
      at: data.appendingPathComponent("models/general/Out"), withDestinationURL: target.folder)

    // The data folder itself may be reached through a link: that is the operator's choice.
    let linkedData = try temporaryDirectory().appendingPathComponent("data")
    try FileManager.default.createSymbolicLink(at: linkedData, withDestinationURL: data)
    let server = try TestServer(dataDirectory: linkedData)

    let coin = server.send(
      "/cms/getImage.png", [("group", "Tools"), ("language", "en"), ("image", "images/coin.png")])
    #expect(Array(coin.body) == [0x89, 0x50, 0x4E, 0x47])
    let leak = server.send(
      "/cms/getImage.png", [("group", "Tools"), ("language", "en"), ("image", "images/leak.png")])
    expectNoLeak(leak, "a symlinked image")
    let linkedGroup = server.send(
      "/cms/getImage.png", [("group", "Out"), ("language", "a"), ("image", "b/c/secret.txt")])
    expectNoLeak(linkedGroup, "a symlinked group")
  }

  @Test func plainNamesAreTheOnlyAcceptedSegments() {
    for refused in ["", ".", "..", ".hidden", "a/b", "a\\b", "a\0b", "%2e%2e", "a%2fb"] {
      #expect(!ContainedFile.isPlainName(refused), "\(refused)")
    }
    for accepted in ["coin.png", "Games, Trivia and Accessories", "a..b", "en"] {
      #expect(ContainedFile.isPlainName(accepted), "\(accepted)")
    }
    #expect(ContainedFile.segments("images/coin.png") == ["images", "coin.png"])
    #expect(ContainedFile.segments("/etc") == ["", "etc"])
  }
}
