import SusiCore
import SusiJSON

/// Turns one element of a SUSI answer's `actions` into an `AnswerAction`.
///
/// Never fails: an action type this client does not know, or a known one whose fields cannot
/// be read (a map whose coordinates are still `$lat$`), is kept as `.unknown` with its raw
/// JSON, so nothing the server said is lost.
enum AnswerActionDecoder {
  /// The most cells a table keeps: rows past it are left out. A table copies its cells from
  /// the answer's data, column by column, so a short reply could otherwise ask for millions.
  static let maximumTableCells = 100_000

  /// Decodes `action` against the answer's `data` rows.
  static func decode(_ action: JSON, data: [JSON]) -> AnswerAction {
    decode(action, rows: rows(data))
  }

  /// The answer's `data` as rows (anything but an object is an empty row): worked out once for
  /// all the actions of an answer.
  static func rows(_ data: [JSON]) -> [JSONObject] { data.map { $0.object ?? [:] } }

  /// Decodes `action` against the answer's data rows.
  static func decode(_ action: JSON, rows: [JSONObject]) -> AnswerAction {
    guard let object = action.object else {
      return .unknown(type: "", raw: action)
    }
    let type = object.text("type") ?? ""
    return known(type, object, rows: rows) ?? .unknown(type: type, raw: action)
  }

  /// The `plan_delay` of an action in milliseconds, when it is planned for later; a longer one
  /// than `PlannedAnswer.maximumDelayMilliseconds` is shortened to it.
  static func planDelay(_ action: JSON) -> Int? {
    guard let delay = action.object?.int("plan_delay"), delay > 0 else { return nil }
    return PlannedAnswer.clamped(delay)
  }

  private static func known(_ type: String, _ a: JSONObject, rows: [JSONObject]) -> AnswerAction? {
    switch type {
    case "answer":
      guard let expression = a.text("expression") else { return nil }
      return .answer(
        expression: expression, language: a.nonEmptyText("language"), mood: a.nonEmptyText("mood"))
    case "table": return table(a, rows: rows)
    case "rss": return rss(a, rows: rows)
    case "websearch":
      guard let query = a.text("query") else { return nil }
      return .websearch(query: query, count: a.int("count"))
    case "anchor":
      guard let link = a.nonEmptyText("link") else { return nil }
      return .anchor(link: link, text: a.nonEmptyText("text") ?? link)
    case "map": return map(a)
    case "piechart": return piechart(a, rows: rows)
    case "video_play", "audio_play":
      guard let identifier = a.nonEmptyText("identifier") else { return nil }
      let identifierType = a.nonEmptyText("identifier_type") ?? "url"
      return type == "video_play"
        ? .videoPlay(identifier: identifier, identifierType: identifierType)
        : .audioPlay(identifier: identifier, identifierType: identifierType)
    case "audio_volume":
      guard let volume = a.double("volume") else { return nil }
      return .audioVolume(volume: Int(min(100, max(0, volume.rounded()))))
    case "image_show":
      guard let url = a.nonEmptyText("url") else { return nil }
      return .imageShow(url: url)
    case "timer_set":
      guard let time = a.nonEmptyText("time") else { return nil }
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
  private static func table(_ a: JSONObject, rows: [JSONObject]) -> AnswerAction {
    var columns: [TableColumn] = []
    switch a["columns"] {
    case .object(let object)?:
      columns = object.map { TableColumn(key: $0.key, header: $0.value.lenientText ?? $0.key) }
    case .array(let array)?:
      columns = array.compactMap { $0.lenientText }.map { TableColumn(key: $0, header: $0) }
    default:
      columns = (rows.first?.keys ?? []).map { TableColumn(key: $0, header: $0) }
    }
    let fitting = columns.isEmpty ? rows.count : maximumTableCells / columns.count
    let shown = rows.prefix(min(clampedCount(a.int("count"), rows: rows.count), fitting))
    return .table(columns: columns, rows: shown.map { row in columns.map { row[$0.key] ?? .null } })
  }

  /// `title`, `description` and `link` name keys inside the data rows, not values.
  private static func rss(_ a: JSONObject, rows: [JSONObject]) -> AnswerAction {
    let titleKey = a.text("title") ?? "title"
    let descriptionKey = a.text("description") ?? "description"
    let linkKey = a.text("link") ?? "link"
    let shown = rows.prefix(clampedCount(a.int("count"), rows: rows.count))
    return .rss(
      items: shown.map {
        FeedItem(
          title: $0.text(titleKey), description: $0.text(descriptionKey), link: $0.text(linkKey))
      })
  }

  /// Coordinates arrive as strings after unification (`"52.52"`); numbers are accepted too.
  private static func map(_ a: JSONObject) -> AnswerAction? {
    guard let latitude = a.double("latitude"), let longitude = a.double("longitude"),
      (-90...90).contains(latitude), (-180...180).contains(longitude)
    else { return nil }
    let zoom: Int
    if a["zoom"] == nil || a["zoom"] == .null {
      zoom = 13
    } else {
      guard let value = a.double("zoom"), (0...30).contains(value) else { return nil }
      zoom = Int(value.rounded())
    }
    return .map(latitude: latitude, longitude: longitude, zoom: zoom)
  }

  /// `key` and `value` name the data columns holding each slice's label and size.
  private static func piechart(_ a: JSONObject, rows: [JSONObject]) -> AnswerAction? {
    guard let keyName = a.nonEmptyText("key"), let valueName = a.nonEmptyText("value") else {
      return nil
    }
    let slices = rows.compactMap { row -> PieSlice? in
      guard let label = row.text(keyName), let value = row.double(valueName) else { return nil }
      return PieSlice(label: label, value: value)
    }
    return .piechart(slices: slices, unit: a.nonEmptyText("unit"))
  }
}
