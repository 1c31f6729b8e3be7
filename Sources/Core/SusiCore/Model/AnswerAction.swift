public import SusiJSON

/// One action of a SUSI answer, decoded into what a client renders. Actions of an answer are
/// conjunctive: render all of them, in order.
public enum AnswerAction: Equatable, Sendable {
  /// Text. `mood == "sabta"` marks the server's fallback ("I don't know…").
  case answer(expression: String, language: String?, mood: String?)
  /// Rows under headers; cells keep whatever JSON the data rows held.
  case table(columns: [TableColumn], rows: [[JSON]])
  /// Feed items read through the key names the action gives, already clamped to `count`.
  case rss(items: [FeedItem])
  /// A search the client performs itself; results arrive as `websearchLoaded`.
  case websearch(query: String, count: Int?)
  case anchor(link: String, text: String)
  case map(latitude: Double, longitude: Double, zoom: Int)
  case piechart(slices: [PieSlice], unit: String?)
  case videoPlay(identifier: String, identifierType: String)
  case audioPlay(identifier: String, identifierType: String)
  case audioVolume(volume: Int)
  case imageShow(url: String)
  case timerSet(time: String)
  /// An action without fields: `stop`, `pause`, `resume`, `restart`, `previous`, `next`,
  /// `shuffle`, `timer_reset`.
  case control(ControlAction)
  /// An action type this client does not know, or a known one whose fields cannot be read (a
  /// map at `$lat$`), kept whole so nothing the server said is lost. The log writes it under
  /// its own type, `unknown`, with the server's name as `serverType`.
  case unknown(type: String, raw: JSON)

  /// The server's `type` name for this action.
  public var typeName: String {
    switch self {
    case .answer: "answer"
    case .table: "table"
    case .rss: "rss"
    case .websearch: "websearch"
    case .anchor: "anchor"
    case .map: "map"
    case .piechart: "piechart"
    case .videoPlay: "video_play"
    case .audioPlay: "audio_play"
    case .audioVolume: "audio_volume"
    case .imageShow: "image_show"
    case .timerSet: "timer_set"
    case .control(let c): c.rawValue
    case .unknown(let type, _): type
    }
  }
}

/// Answer actions that carry no fields.
public enum ControlAction: String, Sendable, CaseIterable {
  case stop, pause, resume, restart, previous, next, shuffle
  case timerReset = "timer_reset"
}

public struct TableColumn: Equatable, Sendable {
  /// The key of the column in the data rows.
  public var key: String
  /// The header to show.
  public var header: String
  public init(key: String, header: String) {
    self.key = key
    self.header = header
  }
}

public struct FeedItem: Equatable, Sendable {
  // Optional members are spelled `Optional<…>` to spare a copy of the whole value per one made
  // (see `Event`).
  public var title: Optional<String>
  public var description: Optional<String>
  public var link: Optional<String>
  public init(title: String? = nil, description: String? = nil, link: String? = nil) {
    self.title = title
    self.description = description
    self.link = link
  }
}

public struct PieSlice: Equatable, Sendable {
  public var label: String
  public var value: Double
  public init(label: String, value: Double) {
    self.label = label
    self.value = value
  }
}

/// Answers the server planned for later (`plan_delay`): delivered after `delayMilliseconds`
/// (counted from the answer that carried them) as their own `messageReceived`.
public struct PlannedAnswer: Equatable, Sendable {
  /// The longest delay kept: 365 days. A longer one (a server's `plan_delay`, a log written by
  /// hand) is shortened to it, a negative one taken as 0, so that no delay can overflow the
  /// moment it is added to.
  public static let maximumDelayMilliseconds = 365 * 86_400_000

  /// From 0 to `maximumDelayMilliseconds`.
  public private(set) var delayMilliseconds: Int
  public var answers: [AnswerAction]

  /// Answers due `delayMilliseconds` later, the delay clamped to `0…maximumDelayMilliseconds`.
  public init(delayMilliseconds: Int, answers: [AnswerAction]) {
    self.delayMilliseconds = Self.clamped(delayMilliseconds)
    self.answers = answers
  }

  /// `delay` within `0…maximumDelayMilliseconds`.
  public static func clamped(_ delay: Int) -> Int { min(max(delay, 0), maximumDelayMilliseconds) }
}
