import SusiHTTPServer
import SusiHTTPTypes
import Testing

/// A request's path: the target up to its `?`, percent-decoded; a target that cannot be decoded
/// keeps its path as sent.
@Suite struct HTTPRequestPathTests {
  @Test(arguments: [
    ("/actions", "/actions"),
    ("/actions?wait=1", "/actions"),
    ("/actions?", "/actions"),
    ("/", "/"),
    ("?only=query", ""),
    ("/a%20b", "/a b"),
    ("/a%20b?x=%20", "/a b"),
    ("/q%3F?x", "/q?"),
    ("/plus+stays", "/plus+stays"),
    ("/bad%zz", "/bad%zz"),
    ("/bad%zz?x=1", "/bad%zz"),
    ("/caf%C3%A9", "/café"),
    ("/half%C3", "/half%C3"),
    ("/é?x", "/é"),
  ])
  func thePathIsTheTargetBeforeItsQueryDecoded(target: String, path: String) {
    #expect(HTTPRequest(method: "GET", target: target).path == path)
  }
}
