import SusiHTTPTypes
import Testing

@Suite struct HTTPHeadersTests {
  @Test func namesMatchIgnoringTheCaseOfASCIILettersOnly() {
    #expect(HTTPHeaders.namesMatch("Content-Type", "content-TYPE"))
    #expect(HTTPHeaders.namesMatch("", ""))
    #expect(!HTTPHeaders.namesMatch("Content-Type", "X-Request-Id"))
    #expect(!HTTPHeaders.namesMatch("Host", "Hos"))
    // Bytes that differ only in the bit case folding sets, but are not letters.
    #expect(!HTTPHeaders.namesMatch("a-b", "a\rb"))
    #expect(!HTTPHeaders.namesMatch("[", "{"))
    #expect(!HTTPHeaders.namesMatch("é", "É"))
  }

  @Test func findsTheFirstValueAndEveryValueOfAName() {
    let headers = HTTPHeaders([("Content-Type", "a"), ("Host", "h"), ("content-type", "b")])
    #expect(headers["CONTENT-TYPE"] == "a")
    #expect(headers.values("content-Type") == ["a", "b"])
    #expect(headers["X-Request-Id"] == nil)
  }
}
