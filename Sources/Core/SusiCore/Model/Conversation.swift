/// One line of the chat transcript: what the user asked, or what SUSI answered.
public struct ChatEntry: Equatable, Sendable {
  public enum Speaker: String, Sendable {
    case user, susi
  }

  /// The seq of the event that added this entry.
  public var seq: Int
  public var at: Timestamp
  public var speaker: Speaker
  /// The user's query (for SUSI's entries: the query being answered).
  public var query: String
  /// SUSI's actions, in order; empty for the user's entries.
  public var answers: [AnswerAction]
  // Optional members are spelled `Optional<…>` to spare a copy of the whole value per one made
  // (see `Event`).
  /// The skill that answered, as the server's path
  /// (`/susi_skill_data/models/general/Knowledge/en/Synonyms.txt`), when known.
  public var skill: Optional<String>

  public init(
    seq: Int, at: Timestamp, speaker: Speaker, query: String, answers: [AnswerAction] = [],
    skill: String? = nil
  ) {
    self.seq = seq
    self.at = at
    self.speaker = speaker
    self.query = query
    self.answers = answers
    self.skill = skill
  }
}

/// One exchange from the server's memory of this user (`memory.json`).
public struct HistoryEntry: Equatable, Sendable {
  public var query: String
  public var answers: [AnswerAction]
  public var queryDate: Timestamp?
  public var answerDate: Timestamp?
  public init(
    query: String, answers: [AnswerAction], queryDate: Timestamp? = nil,
    answerDate: Timestamp? = nil
  ) {
    self.query = query
    self.answers = answers
    self.queryDate = queryDate
    self.answerDate = answerDate
  }
}

/// One web-search result (DuckDuckGo's RelatedTopics item).
public struct SearchResult: Equatable, Sendable {
  public var title: String
  // Optional members are spelled `Optional<…>` to spare a copy of the whole value per one made
  // (see `Event`).
  public var description: Optional<String>
  public var link: String
  /// Absolute icon URL, when the result has one.
  public var icon: Optional<String>
  public init(title: String, description: String? = nil, link: String, icon: String? = nil) {
    self.title = title
    self.description = description
    self.link = link
    self.icon = icon
  }
}

/// What a page says about itself (Open Graph, `<title>`, meta description).
public struct LinkPreview: Equatable, Sendable {
  public var url: String
  public var title: String?
  public var description: String?
  public var image: String?
  public init(url: String, title: String? = nil, description: String? = nil, image: String? = nil) {
    self.url = url
    self.title = title
    self.description = description
    self.image = image
  }
}

/// An image held in the on-disk cache.
public struct CachedImage: Equatable, Sendable {
  public var path: String
  public var bytes: Int
  public init(path: String, bytes: Int) {
    self.path = path
    self.bytes = bytes
  }
}

/// What went wrong with a request, in a form every frontend can show.
public struct RequestError: Equatable, Sendable, CustomStringConvertible {
  /// What kind of failure it was: the word programs branch on.
  public var kind: RequestErrorKind
  /// The HTTP status, when there was one.
  public var status: Int?
  /// A sentence a person can act on.
  public var message: String

  public init(kind: RequestErrorKind, status: Int? = nil, message: String) {
    self.kind = kind
    self.status = status
    self.message = message
  }

  public var description: String {
    if let status { "\(message) (\(kind), HTTP \(status))" } else { "\(message) (\(kind))" }
  }
}
