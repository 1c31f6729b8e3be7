import SusiHTTPTypes
import Testing

@testable import SusiHTTPClient

/// How the client takes a URL apart and encodes a query: both run once per request.
struct HTTPURLTests {
  @Test func urlsAreTakenApartForSending() throws {
    let plain = try #require(HTTPURL("HTTP://User@Example.COM:8080/a/b?q=1#frag"))
    #expect(!plain.isSecure)
    #expect(plain.host == "example.com")
    #expect(plain.port == 8080)
    #expect(plain.target == "/a/b?q=1")
    let secure = try #require(HTTPURL("https://[::1]?x=y"))
    #expect(secure.isSecure)
    #expect(secure.host == "::1")
    #expect(secure.port == 443)
    #expect(secure.target == "/?x=y")
    let bare = try #require(HTTPURL("http://a.example"))
    #expect(bare.target == "/")
    #expect(bare.port == 80)
    #expect(try #require(HTTPURL("http://x:y@h.example#only")).host == "h.example")
    // Longer than a string held inline (15 bytes): lower-cased into storage of its own.
    let long = try #require(HTTPURL("http://SUSI.Chat-Server.EXAMPLE:80/"))
    #expect(long.host == "susi.chat-server.example")
    #expect(try #require(HTTPURL("http://h.example/é?q=ü")).target == "/é?q=ü")
    let refused = [
      "ftp://a/", "http:/a", "http://", "http://a b/", "http://h:0/", "http://h:99999/",
      "http://[::1/", "http://[::1]x/", "http://h\\x/", "https//h/",
    ]
    for text in refused { #expect(HTTPURL(text) == nil, "\(text)") }
  }

  @Test func formsEncodeAllButUnreservedCharacters() {
    #expect(
      URLEncodedForm.encode([("q", "hello"), ("a b", "x,y&z=ü")])
        == "q=hello&a%20b=x%2Cy%26z%3D%C3%BC")
    #expect(URLEncodedForm.encode([]) == "")
    // Written into room reserved at once: separators with nothing to escape around them fit.
    #expect(URLEncodedForm.encode([("", ""), ("", ""), ("", "")]) == "=&=&=")
    #expect(URLEncodedForm.percentEncode("ü ü") == "%C3%BC%20%C3%BC")
    #expect(URLEncodedForm.percentEncode("-._~AZaz09") == "-._~AZaz09")
  }
}
