import SusiCommandLine
public import SusiCore
import SusiJSON
import SusiTerminal

extension TextRenderer {
  /// Every action of an answer, in order, each as its own block of lines.
  public func answer(_ actions: [AnswerAction]) -> String {
    Self.join(actions.map(action))
  }

  /// One answer action for a person. A `websearch` action becomes a heading: the chat performs
  /// the search itself and prints the results under it.
  public func action(_ action: AnswerAction) -> String {
    switch action {
    case .answer(let expression, _, _):
      return expression.terminalSafe
    case .table(let columns, let rows):
      guard !rows.isEmpty else { return notice("empty table") }
      return table(
        TextTable(headers: columns.map(\.header), rows: rows.map { $0.map(Self.cellText) }))
    case .rss(let items):
      return items.isEmpty ? notice("no feed items") : cards(items)
    case .websearch(let query, _):
      return "Web search: " + style.bold(query.singleLine)
    case .anchor(let link, let text):
      let label = text.singleLine
      return label.isEmpty || label == link.singleLine
        ? style.cyan(link.singleLine) : "\(label) <\(style.cyan(link.singleLine))>"
    case .map(let latitude, let longitude, let zoom):
      return map(latitude: latitude, longitude: longitude, zoom: zoom)
    case .piechart(let slices, let unit):
      return piechart(slices, unit: unit)
    case .videoPlay(let identifier, let type):
      return "Video: " + style.cyan(Self.mediaLink(identifier, type: type))
    case .audioPlay(let identifier, let type):
      return "Audio: " + style.cyan(Self.mediaLink(identifier, type: type))
    case .audioVolume(let volume):
      return notice("volume \(volume)%")
    case .imageShow(let url):
      return "Image: " + style.cyan(url.singleLine)
    case .timerSet(let time):
      return notice("timer set for \(timerText(time))")
    case .control(let control):
      return notice(String(control.rawValue.map { $0 == "_" ? " " : $0 }))
    case .unknown(let type, _):
      return notice("unsupported action: \(type.singleLine)")
    }
  }

  /// A short bracketed note for actions a terminal cannot perform (`[stop]`).
  func notice(_ text: String) -> String { style.dim("[\(text)]") }

  /// A table cell's text: strings as they are, numbers and booleans as JSON writes them,
  /// null as nothing, arrays and objects as compact JSON.
  static func cellText(_ value: JSON) -> String {
    switch value {
    case .null: ""
    case .string(let text): text
    case .int(let number): String(number)
    case .double(let number): NumberText.trimmed(number, maximumDecimals: 6)
    case .number(let text): text
    case .bool(let flag): flag ? "true" : "false"
    case .array, .object: value.compactText
    }
  }

  /// Coordinates and an OpenStreetMap link centred on them.
  func map(latitude: Double, longitude: Double, zoom: Int) -> String {
    let lat = NumberText.trimmed(latitude, maximumDecimals: 6)
    let lon = NumberText.trimmed(longitude, maximumDecimals: 6)
    let link = Self.openStreetMapLink(latitude: latitude, longitude: longitude, zoom: zoom)
    return "Map: \(lat), \(lon) (zoom \(zoom))\n" + style.cyan(link)
  }

  /// `https://www.openstreetmap.org/?mlat=LAT&mlon=LON#map=ZOOM/LAT/LON`.
  public static func openStreetMapLink(latitude: Double, longitude: Double, zoom: Int) -> String {
    let lat = NumberText.trimmed(latitude, maximumDecimals: 6)
    let lon = NumberText.trimmed(longitude, maximumDecimals: 6)
    let z = min(max(zoom, 0), 19)
    return "https://www.openstreetmap.org/?mlat=\(lat)&mlon=\(lon)#map=\(z)/\(lat)/\(lon)"
  }

  /// A playable link: YouTube ids become watch URLs, URLs stay as they are.
  public static func mediaLink(_ identifier: String, type: String) -> String {
    let id = identifier.singleLine
    if type.lowercased() == "youtube" && !id.contains("/") {
      return "https://www.youtube.com/watch?v="
        + id.filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
    }
    if type.lowercased() == "url" || id.contains("://") { return id }
    return "\(id) (\(type.singleLine))"
  }

  /// Labelled bars, one per slice, with each slice's share of the total.
  func piechart(_ slices: [PieSlice], unit: String?) -> String {
    guard !slices.isEmpty else { return notice("empty chart") }
    let total = slices.map { max($0.value, 0) }.reduce(0, +)
    let labelWidth = min(slices.map { $0.label.singleLine.displayWidth }.max() ?? 0, width / 3)
    let barWidth = max(5, min(30, width - labelWidth - 12))
    var lines: [String] = []
    for slice in slices {
      let share = total > 0 ? max(slice.value, 0) / total : 0
      let label = fit(slice.label.singleLine, labelWidth).padded(toWidth: labelWidth)
      let bar = paddedBar(share, width: barWidth, colour: style.green)
      var line =
        "\(label)  \(bar)  "
        + (NumberText.fixed(share * 100, decimals: 1) + "%").padded(toWidth: 6, alignRight: true)
      if let unit = unit?.singleLine, !unit.isEmpty, unit != "%" {
        line += "  (\(NumberText.trimmed(slice.value, maximumDecimals: 2)) \(unit))"
      }
      lines.append(line)
    }
    return Self.join(lines)
  }

  /// A timer's time: unix seconds (or milliseconds) as a date-time in the renderer's zone,
  /// anything else as given.
  func timerText(_ time: String) -> String {
    let text = time.singleLine
    guard let number = Int64(text), number >= 0, number < 100_000_000_000_000 else { return text }
    let milliseconds = number >= 100_000_000_000 ? number : number * 1000
    return dateText(Timestamp(milliseconds: milliseconds), seconds: true)
  }
}
