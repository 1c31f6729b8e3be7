import SusiCore
import SusiJSON

/// Turns one element of a SUSI answer's `actions` into an `AnswerAction`.
///
/// Never fails on a tree: an action type this client does not know, or a known one whose fields
/// cannot be read (a map whose coordinates are still `$lat$`), is kept as `.unknown` with its raw
/// JSON, so nothing the server said is lost. (A reader of bytes gives up on those, and the reply
/// is read as a tree.)
enum AnswerActionDecoder {
  /// The most cells a table keeps: rows past it are left out. A table copies its cells from
  /// the answer's data, column by column, so a short reply could otherwise ask for millions.
  static let maximumTableCells = 100_000

  /// An answer's `data` as rows (anything but an object is an empty row), read when an action
  /// first needs them (most show text and need none), once for all the actions of the answer.
  struct Rows<Answer: FieldReading> {
    let answer: Answer
    private var read: [JSONObject]?

    init(of answer: Answer) { self.answer = answer }

    mutating func get() throws -> [JSONObject] {
      if let read { return read }
      let rows = (try answer.optionalValue("data")?.array ?? []).map { $0.object ?? [:] }
      read = rows
      return rows
    }
  }

  /// Decodes the action `a` against its answer's data rows.
  static func decode(_ a: some ReplyFields, rows: inout Rows<some FieldReading>) throws
    -> AnswerAction
  {
    let type = try a.lenientText("type") ?? ""
    if let known = try known(type, a, rows: &rows) { return known }
    return .unknown(type: type, raw: try a.tree())
  }

  /// The `plan_delay` of an action in milliseconds, when it is planned for later; a longer one
  /// than `PlannedAnswer.maximumDelayMilliseconds` is shortened to it.
  static func planDelay(_ action: some FieldReading) throws -> Int? {
    guard let delay = try action.lenientInt("plan_delay"), delay > 0 else { return nil }
    return PlannedAnswer.clamped(delay)
  }

  private static func known(
    _ type: String, _ a: some FieldReading, rows: inout Rows<some FieldReading>
  ) throws -> AnswerAction? {
    switch type {
    case "answer":
      guard let expression = try a.lenientText("expression") else { return nil }
      return .answer(
        expression: expression, language: try a.nonEmptyText("language"),
        mood: try a.nonEmptyText("mood"))
    case "table": return try table(a, rows: try rows.get())
    case "rss": return try rss(a, rows: try rows.get())
    case "websearch":
      guard let query = try a.lenientText("query") else { return nil }
      return .websearch(query: query, count: try a.lenientInt("count"))
    case "anchor":
      guard let link = try a.nonEmptyText("link") else { return nil }
      return .anchor(link: link, text: try a.nonEmptyText("text") ?? link)
    case "map": return try map(a)
    case "piechart": return try piechart(a, rows: &rows)
    case "video_play", "audio_play":
      guard let identifier = try a.nonEmptyText("identifier") else { return nil }
      let identifierType = try a.nonEmptyText("identifier_type") ?? "url"
      return type == "video_play"
        ? .videoPlay(identifier: identifier, identifierType: identifierType)
        : .audioPlay(identifier: identifier, identifierType: identifierType)
    case "audio_volume":
      guard let volume = try a.lenientDouble("volume") else { return nil }
      return .audioVolume(volume: Int(min(100, max(0, volume.rounded()))))
    case "image_show":
      guard let url = try a.nonEmptyText("url") else { return nil }
      return .imageShow(url: url)
    case "timer_set":
      guard let time = try a.nonEmptyText("time") else { return nil }
      return .timerSet(time: time)
    default:
      return ControlAction(rawValue: type).map { .control($0) }
    }
  }

  /// How many rows an action with `count` shows: -1 (the default) or absent means all; a
  /// count beyond the rows is clamped.
  static func clampedCount(_ count: Int?, rows: Int) -> Int {
    guard let count, count >= 0 else { return rows }
    return min(count, rows)
  }

  /// `columns` is an object `{dataKey: header}` in skill data, or an array `["title"]` (key and
  /// header alike) in some server skills; without columns, the first row's keys are used.
  private static func table(_ a: some FieldReading, rows: [JSONObject]) throws -> AnswerAction {
    var columns: [TableColumn] = []
    switch try a.optionalValue("columns") {
    case .object(let object)?:
      columns = object.map { TableColumn(key: $0.key, header: $0.value.lenientText ?? $0.key) }
    case .array(let array)?:
      columns = array.compactMap { $0.lenientText }.map { TableColumn(key: $0, header: $0) }
    default:
      columns = (rows.first?.keys ?? []).map { TableColumn(key: $0, header: $0) }
    }
    let fitting = columns.isEmpty ? rows.count : maximumTableCells / columns.count
    let shown = rows.prefix(
      min(clampedCount(try a.lenientInt("count"), rows: rows.count), fitting))
    return .table(columns: columns, rows: shown.map { row in columns.map { row[$0.key] ?? .null } })
  }

  /// `title`, `description` and `link` name keys inside the data rows, not values.
  private static func rss(_ a: some FieldReading, rows: [JSONObject]) throws -> AnswerAction {
    let titleKey = try a.lenientText("title") ?? "title"
    let descriptionKey = try a.lenientText("description") ?? "description"
    let linkKey = try a.lenientText("link") ?? "link"
    let shown = rows.prefix(clampedCount(try a.lenientInt("count"), rows: rows.count))
    return .rss(
      items: shown.map {
        FeedItem(
          title: $0.text(titleKey), description: $0.text(descriptionKey), link: $0.text(linkKey))
      })
  }

  /// Coordinates arrive as strings after unification (`"52.52"`); numbers are accepted too.
  private static func map(_ a: some FieldReading) throws -> AnswerAction? {
    guard let latitude = try a.lenientDouble("latitude"),
      let longitude = try a.lenientDouble("longitude"),
      (-90...90).contains(latitude), (-180...180).contains(longitude)
    else { return nil }
    let zoom: Int
    if let given = try a.optionalValue("zoom") {
      guard let value = given.lenientDouble, (0...30).contains(value) else { return nil }
      zoom = Int(value.rounded())
    } else {
      zoom = 13
    }
    return .map(latitude: latitude, longitude: longitude, zoom: zoom)
  }

  /// `key` and `value` name the data columns holding each slice's label and size.
  private static func piechart(_ a: some FieldReading, rows: inout Rows<some FieldReading>)
    throws -> AnswerAction?
  {
    guard let keyName = try a.nonEmptyText("key"), let valueName = try a.nonEmptyText("value")
    else {
      return nil
    }
    let slices = try rows.get().compactMap { row -> PieSlice? in
      guard let label = row.text(keyName), let value = row.double(valueName) else { return nil }
      return PieSlice(label: label, value: value)
    }
    return .piechart(slices: slices, unit: try a.nonEmptyText("unit"))
  }
}
