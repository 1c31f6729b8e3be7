import SusiRoundTrip
import Testing

/// Replies aimed at the lenient members the reply decoder reads (`session`, `query`, dates,
/// `skills`), well formed and not, and at values the bytes reader must check though the decoder
/// skips them: read from their bytes they give what their tree gives, or the bytes reader gives
/// up.
@Suite struct ReaderAgreementTests {
  @Test(arguments: [
    #"{"query":"q","session":{"identity":"\x"}}"#,
    #"{"query":"q","session":{"identity":{"anonymous":"\x"}}}"#,
    #"{"query":"q","session":{"identity":{"anonymous":tru}}}"#,
    #"{"query":"q","session":"\u12"}"#,
    #"{"query":"q","session":[1,2,}"#,
    #"{"query":"\ud800","answers":[]}"#,
    #"{"query":7,"query_date":{"x":"\q"}}"#,
    #"{"answers":[{"skills":["\u0000",1e999],"actions":[]}]}"#,
    #"{"answers":[{"data":[{"a":-}],"actions":[]}]}"#,
    #"{"cognitions":[{"query":"q","session":{"identity":{"anonymous":"x\y"}}}]}"#,
    #"{"cognitions":[{"query":"q"},{"query":"r","answers":{"\z":1}}],"cognitions_remaining":1}"#,
    #"{"session":{"identity":{"anonymous":true}},"session":{}}"#,
    #"{"query":"q","session":"x","query_date":"2026-11-28T01:12:34.032Z"}"#,
    #"{"query":"q","session":{"identity":[]},"answer_date":1599513374123}"#,
    #"{"query":"q","session":{"identity":{"anonymous":"no"}},"query_date":"yesterday"}"#,
    #"{"query":null,"session":{"identity":{"anonymous":1}},"answers":[{"skills":[2,"s"]}]}"#,
    #"{"cognitions":[{"query":"q","session":{"identity":{"anonymous":"yes"}}},7],"cognitions_remaining":"3"}"#,
  ])
  func aReplyReadFromItsBytesGivesWhatItsTreeGives(reply: String) throws {
    try ReaderAgreement.check(Array(reply.utf8))
  }
}
