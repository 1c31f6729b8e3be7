import SusiCore
import Testing

@Suite struct ValidationTests {
  @Test(arguments: [
    ("embedded", "embedded"), (" embedded\n", "embedded"), ("http://localhost", "http://localhost"),
    ("https://api.susi.ai", "https://api.susi.ai"), ("HTTP://API.SUSI.AI", "http://api.susi.ai"),
    ("https://api.susi.ai/", "https://api.susi.ai"),
    ("https://h.example/a/B/", "https://h.example/a/B"),
    ("https://h.example/a//", "https://h.example/a"), ("http://h:1", "http://h:1"),
    ("http://h:65535", "http://h:65535"),
    ("http://h:08080", "http://h:08080"), ("http://10.0.0.1:4000", "http://10.0.0.1:4000"),
    ("http://[::1]", "http://[::1]"),
    ("http://[2001:DB8::1]:8080/x", "http://[2001:db8::1]:8080/x"),
    ("http://bücher.example", "http://bücher.example"),
    ("http://my-host_1.example", "http://my-host_1.example"),
  ])
  func normalisesAcceptableServerURLs(text: String, normalised: String) {
    #expect(Validation.serverURL(text) == normalised)
  }

  @Test(arguments: [
    "", "EMBEDDED", "embedded/", "susi.ai", "//susi.ai", "ws://susi.ai", "https:/susi.ai",
    "http://",
    "http://:80", "http://h:0", "http://h:65536", "http://h:123456", "http://h:", "http://h:x",
    "http://u:p@h",
    "http://@h", "http://h/?", "http://h/?q=1", "http://h#", "http://h/#x", "http://h h",
    "http://h/\u{7F}",
    "http://h\u{9}x", "http://[::1", "http://[::1]:", "http://[::1]:0", "http://[::1]8080",
    "http://[]",
    "http://[g::1]", "http://a:b:80", "http://h!", "http://h%20",
  ])
  func refusesUnacceptableServerURLs(text: String) {
    #expect(Validation.serverURL(text) == nil)
  }

  @Test(arguments: [
    "http://h", "https://swift.org/", "https://swift.org/path?q=1&r=2", "https://swift.org/#top",
    "HTTPS://SWIFT.ORG", "http://h:8080/a/b.png", "http://[::1]:80/x",
  ])
  func acceptsAbsoluteWebURLs(text: String) {
    #expect(Validation.webURL(text))
  }

  @Test(arguments: [
    "", "embedded", "swift.org", "/path", "ftp://swift.org", "file:///etc/passwd",
    "data:text/plain,hi",
    "javascript:alert(1)", "https://", "https://u:p@swift.org", "https://swift.org:0",
    "https://swift .org",
    " https://swift.org", "https://swift.org\n",
  ])
  func refusesEverythingElseAsAWebURL(text: String) {
    #expect(!Validation.webURL(text))
  }

  @Test(arguments: [
    "ada@example.org", "a@b.c", "first.last+tag@sub.example.co.uk", "ADA@EXAMPLE.ORG",
    "zoë@bücher.example",
    String(repeating: "a", count: 242) + "@example.org",
  ])
  func acceptsPlausibleEmails(email: String) {
    #expect(Validation.emailProblem(email) == nil)
  }

  @Test(arguments: [
    "", "ada", "@example.org", "ada@", "ada@example", "ada@.example", "ada@example.", "a@b@c.d",
    "ada @example.org", "ada@exa mple.org", "ada\t@example.org", "ada,b@example.org",
    "ada;b@example.org",
    "ada\n@example.org", String(repeating: "a", count: 243) + "@example.org",
  ])
  func refusesImplausibleEmails(email: String) {
    #expect(Validation.emailProblem(email) == "'\(email)' is not an email address")
  }

  @Test(arguments: [
    ("", ""), ("   ", ""), ("x", "x"), ("  x  ", "x"), ("\n\tx y\r\n", "x y"),
    ("\u{A0}x\u{2003}", "x"),
    ("a  b", "a  b"), ("😀 ", "😀"), (" e\u{301} ", "e\u{301}"),
  ])
  func trimsWhitespaceAtBothEnds(text: String, trimmed: String) {
    #expect(text.trimmed == trimmed)
  }
}
