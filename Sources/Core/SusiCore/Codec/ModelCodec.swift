public import SusiJSON

// How the model values are written into the log and read back. Field names are camelCase and
// stable; optional fields are omitted when nil.

extension Skill {
  func write(to w: inout JSONWriter) {
    w.object { o in
      o.field("group", group)
      o.field("tag", tag)
      o.field("language", language)
      o.field("model", model)
      o.field("name", name)
      o.field("description", description)
      o.field("author", author)
      o.field("authorURL", authorURL)
      o.field("authorEmail", authorEmail)
      o.field("image", image)
      o.field("imageURL", imageURL)
      o.field("examples", examples)
      o.field("dynamicContent", dynamicContent)
      o.field("termsOfUse", termsOfUse)
      o.field("developerPrivacyPolicy", developerPrivacyPolicy)
      if let rating { o.field("rating") { rating.write(to: &$0) } }
      o.field("usageCount", usageCount)
      o.field("lastModified", lastModified)
      o.field("created", created)
      o.field("languages", languages)
    }
  }

  init(reading r: some FieldReading) throws(JSONShapeError) {
    self.init(
      tag: try r.string("tag"), group: try r.string("group"),
      language: try r.optionalString("language") ?? "en",
      model: try r.optionalString("model") ?? "general", name: try r.optionalString("name"),
      description: try r.optionalString("description"), author: try r.optionalString("author"),
      authorURL: try r.optionalString("authorURL"),
      authorEmail: try r.optionalString("authorEmail"), image: try r.optionalString("image"),
      imageURL: try r.optionalString("imageURL"),
      examples: r.has("examples") ? try r.strings("examples") : [],
      dynamicContent: try r.optionalBool("dynamicContent") ?? false,
      termsOfUse: try r.optionalString("termsOfUse"),
      developerPrivacyPolicy: try r.optionalString("developerPrivacyPolicy"),
      rating: try r.optionalObject("rating").map { (o) throws(JSONShapeError) in
        try RatingAggregate(reading: o)
      },
      usageCount: try r.optionalInt("usageCount"),
      lastModified: try r.optionalString("lastModified"),
      created: try r.optionalString("created"),
      languages: r.has("languages") ? try r.strings("languages") : nil)
  }
}

extension RatingAggregate {
  func write(to w: inout JSONWriter) {
    w.object { o in
      o.field("oneStar", oneStar)
      o.field("twoStar", twoStar)
      o.field("threeStar", threeStar)
      o.field("fourStar", fourStar)
      o.field("fiveStar", fiveStar)
      o.field("average", average)
      o.field("total", total)
      o.field("positive", positive)
      o.field("negative", negative)
      o.field("feedbackCount", feedbackCount)
      o.field("bookmarkCount", bookmarkCount)
    }
  }

  init(reading r: some FieldReading) throws(JSONShapeError) {
    self.init(
      oneStar: try r.int("oneStar"), twoStar: try r.int("twoStar"),
      threeStar: try r.int("threeStar"), fourStar: try r.int("fourStar"),
      fiveStar: try r.int("fiveStar"), average: try r.double("average"), total: try r.int("total"),
      positive: try r.optionalInt("positive"), negative: try r.optionalInt("negative"),
      feedbackCount: try r.optionalInt("feedbackCount"),
      bookmarkCount: try r.optionalInt("bookmarkCount"))
  }
}

extension RequestError {
  func write(to w: inout JSONWriter) {
    w.object { o in
      o.field("kind", kind.rawValue)
      o.field("status", status)
      o.field("message", Redaction.scrub(message))
    }
  }

  init(reading r: some FieldReading) throws(JSONShapeError) {
    self.init(
      kind: RequestErrorKind(rawValue: try r.string("kind")), status: try r.optionalInt("status"),
      message: try r.string("message"))
  }
}

extension SettingValue {
  func write(to w: inout JSONWriter) {
    switch self {
    case .bool(let b): w.bool(b)
    case .number(let d):
      if d == d.rounded() && abs(d) < 1e15 { w.int(Int(d)) } else { w.double(d) }
    case .string(let s): w.string(s)
    }
  }

  /// A setting value from JSON: a boolean, number or string.
  public init(json: JSON, path: String) throws(JSONShapeError) {
    switch json {
    case .bool(let b): self = .bool(b)
    case .int(let i): self = .number(Double(i))
    case .double(let d): self = .number(d)
    case .number: self = .number(json.double ?? 0)
    case .string(let s): self = .string(s)
    default:
      throw JSONShapeError(
        path: path, reason: "expected a boolean, number or string, found \(json.kindName)")
    }
  }
}

func writeSettings(_ settings: [String: SettingValue], to w: inout JSONWriter) {
  w.object { o in
    for key in settings.keys.sorted() { o.field(dynamic: key) { settings[key]!.write(to: &$0) } }
  }
}

func readSettings(_ r: some FieldReading, _ key: String) throws(JSONShapeError) -> [String:
  SettingValue]
{
  let object = try r.object(key)
  var out: [String: SettingValue] = [:]
  // Room for every member at once: growing one member at a time allocates twice for two.
  out.reserveCapacity(object.memberCount)
  try object.forEachMember { (key, value) throws(JSONShapeError) in
    out[key] = try SettingValue(json: value, path: object.fieldPath(key))
  }
  return out
}

extension AnswerAction {
  /// The log's `type` for an action kept whole (`.unknown`): no server action is called this
  /// in the log, so a known name never holds a payload its reader cannot read. The server's own
  /// name goes beside it as `serverType`.
  static let keptWholeType = "unknown"

  func write(to w: inout JSONWriter) {
    w.object { o in
      if case .unknown(let type, _) = self {
        o.field("type", Self.keptWholeType)
        o.field("serverType", type)
      } else {
        o.field("type", typeName)
      }
      switch self {
      case .answer(let expression, let language, let mood):
        o.field("expression", expression)
        o.field("language", language)
        o.field("mood", mood)
      case .table(let columns, let rows):
        o.field("columns") {
          $0.array(columns) { w, c in
            w.object {
              $0.field("key", c.key)
              $0.field("header", c.header)
            }
          }
        }
        o.field("rows") { $0.array(rows) { w, row in w.array(row) { $0.value($1) } } }
      case .rss(let items):
        o.field("items") {
          $0.array(items) { w, item in
            w.object {
              $0.field("title", item.title)
              $0.field("description", item.description)
              $0.field("link", item.link)
            }
          }
        }
      case .websearch(let query, let count):
        o.field("query", query)
        o.field("count", count)
      case .anchor(let link, let text):
        o.field("link", link)
        o.field("text", text)
      case .map(let latitude, let longitude, let zoom):
        o.field("latitude", latitude)
        o.field("longitude", longitude)
        o.field("zoom", zoom)
      case .piechart(let slices, let unit):
        o.field("slices") {
          $0.array(slices) { w, s in
            w.object {
              $0.field("label", s.label)
              $0.field("value", s.value)
            }
          }
        }
        o.field("unit", unit)
      case .videoPlay(let identifier, let identifierType),
        .audioPlay(let identifier, let identifierType):
        o.field("identifier", identifier)
        o.field("identifierType", identifierType)
      case .audioVolume(let volume):
        o.field("volume", volume)
      case .imageShow(let url):
        o.field("url", url)
      case .timerSet(let time):
        o.field("time", time)
      case .control:
        break
      case .unknown(_, let raw):
        o.field("raw", raw)
      }
    }
  }

  init(reading r: some FieldReading) throws(JSONShapeError) {
    let type = try r.string("type")
    if type == Self.keptWholeType {
      self = .unknown(
        type: try r.optionalString("serverType") ?? type, raw: try r.optionalValue("raw") ?? .null)
      return
    }
    do {
      try self.init(known: type, r)
    } catch {
      // Versions before `serverType` wrote an action kept whole under the server's name, even
      // a known one whose fields could not be read (a map at `$lat$`): read those as they were
      // meant, rather than refuse the whole log.
      guard r.contains("raw"), !r.contains("serverType") else { throw error }
      self = .unknown(type: type, raw: try r.optionalValue("raw") ?? .null)
    }
  }

  private init(known type: String, _ r: some FieldReading) throws(JSONShapeError) {
    switch type {
    case "answer":
      self = .answer(
        expression: try r.string("expression"), language: try r.optionalString("language"),
        mood: try r.optionalString("mood"))
    case "table":
      let columns = try r.objects("columns") { (c) throws(JSONShapeError) in
        TableColumn(key: try c.string("key"), header: try c.string("header"))
      }
      var rows: [[JSON]] = []
      for (i, row) in try r.array("rows").enumerated() {
        guard case .array(let cells) = row else {
          throw JSONShapeError(
            path: "\(r.fieldPath("rows"))[\(i)]", reason: "expected an array, found \(row.kindName)"
          )
        }
        rows.append(cells)
      }
      self = .table(columns: columns, rows: rows)
    case "rss":
      var items: [FeedItem] = []
      for item in try r.objects("items") {
        items.append(
          FeedItem(
            title: try item.optionalString("title"),
            description: try item.optionalString("description"),
            link: try item.optionalString("link")))
      }
      self = .rss(items: items)
    case "websearch":
      self = .websearch(query: try r.string("query"), count: try r.optionalInt("count"))
    case "anchor":
      self = .anchor(link: try r.string("link"), text: try r.string("text"))
    case "map":
      self = .map(
        latitude: try r.double("latitude"), longitude: try r.double("longitude"),
        zoom: try r.int("zoom"))
    case "piechart":
      var slices: [PieSlice] = []
      for s in try r.objects("slices") {
        slices.append(PieSlice(label: try s.string("label"), value: try s.double("value")))
      }
      self = .piechart(slices: slices, unit: try r.optionalString("unit"))
    case "video_play":
      self = .videoPlay(
        identifier: try r.string("identifier"), identifierType: try r.string("identifierType"))
    case "audio_play":
      self = .audioPlay(
        identifier: try r.string("identifier"), identifierType: try r.string("identifierType"))
    case "audio_volume":
      self = .audioVolume(volume: try r.int("volume"))
    case "image_show":
      self = .imageShow(url: try r.string("url"))
    case "timer_set":
      self = .timerSet(time: try r.string("time"))
    default:
      if let control = ControlAction(rawValue: type) {
        self = .control(control)
      } else {
        self = .unknown(type: type, raw: try r.optionalValue("raw") ?? .null)
      }
    }
  }
}

func writeAnswers(_ answers: [AnswerAction], to w: inout JSONWriter) {
  w.array(answers) { w, a in a.write(to: &w) }
}

func readAnswers(_ r: some FieldReading, _ key: String) throws(JSONShapeError) -> [AnswerAction] {
  try r.objects(key) { (a) throws(JSONShapeError) in try AnswerAction(reading: a) }
}

extension HistoryEntry {
  func write(to w: inout JSONWriter) {
    w.object { o in
      o.field("query", query)
      o.field("answers") { writeAnswers(answers, to: &$0) }
      o.field("queryDate", queryDate?.rfc3339)
      o.field("answerDate", answerDate?.rfc3339)
    }
  }

  init(reading r: some FieldReading) throws(JSONShapeError) {
    self.init(
      query: try r.string("query"), answers: try readAnswers(r, "answers"),
      queryDate: try readTimestamp(r, "queryDate"), answerDate: try readTimestamp(r, "answerDate"))
  }
}

extension SearchResult {
  func write(to w: inout JSONWriter) {
    w.object { o in
      o.field("title", title)
      o.field("description", description)
      o.field("link", link)
      o.field("icon", icon)
    }
  }

  init(reading r: some FieldReading) throws(JSONShapeError) {
    self.init(
      title: try r.string("title"), description: try r.optionalString("description"),
      link: try r.string("link"), icon: try r.optionalString("icon"))
  }
}

extension PlannedAnswer {
  func write(to w: inout JSONWriter) {
    w.object { o in
      o.field("delay", delayMilliseconds)
      o.field("answers") { writeAnswers(answers, to: &$0) }
    }
  }

  init(reading r: some FieldReading) throws(JSONShapeError) {
    self.init(delayMilliseconds: try r.int("delay"), answers: try readAnswers(r, "answers"))
  }
}

/// The planned answers in the list `key`; none when it is absent.
func readPlanned(_ r: some FieldReading, _ key: String) throws(JSONShapeError) -> [PlannedAnswer] {
  guard r.has(key) else { return [] }
  return try r.objects(key) { (p) throws(JSONShapeError) in try PlannedAnswer(reading: p) }
}

func readTimestamp(_ r: some FieldReading, _ key: String) throws(JSONShapeError) -> Timestamp? {
  guard let text = try r.optionalString(key) else { return nil }
  guard let t = Timestamp(rfc3339: text) else {
    throw JSONShapeError(path: r.fieldPath(key), reason: "expected an RFC 3339 date-time")
  }
  return t
}

/// The `resolved` skill of a rating result, when the runner had to look the skill up.
func readResolved(_ r: some FieldReading) throws(JSONShapeError) -> Skill? {
  guard let skill = try r.optionalObject("resolved") else { return nil }
  return try Skill(reading: skill)
}
