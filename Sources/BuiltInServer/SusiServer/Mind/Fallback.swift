/// What the server says when no skill matches: a "don't know" answer in the `sabta` mood and a
/// `websearch` action for the query, like the real server's system fail skill.
enum Fallback {
  static let skillPath = "/susi_server/conf/os_skills/system/en/en_0090_fail.json"

  static func text(language: String) -> String {
    switch language {
    case "de": "Ich weiß die Antwort auf diese Frage nicht."
    default: "I don't know the answer to that question."
    }
  }
}
