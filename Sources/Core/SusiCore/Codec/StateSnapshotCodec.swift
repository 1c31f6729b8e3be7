public import SusiJSON

// The state as a snapshot holds it: every field as `State.fields` writes it (nested values in
// the order they arrived, not sorted, so reading it back gives the very state replay built),
// except the user's ratings, whose `group/skill` keys would be ambiguous when a name holds a
// slash: those are a list of `[group, skill, stars]`.

extension State {
  /// Writes the state in snapshot form (see `init(snapshot:)`).
  public func writeSnapshot(to w: inout JSONWriter) {
    w.object { o in
      for field in State.fields where field.name != "userRatings" {
        o.field(dynamic: field.name) { field.write(self, &$0) }
      }
      o.field("userRatings") { w in
        w.array(userRatings.sorted { $0.key < $1.key }) { w, rating in
          w.array([rating.key.group, rating.key.skill]) { $0.string($1) }
        }
      }
      o.field("userRatingStars") { w in
        w.array(userRatings.sorted { $0.key < $1.key }) { w, rating in
          if let stars = rating.value.stars { w.int(stars) } else { w.raw("null") }
        }
      }
    }
  }

  /// Reads a state written by `writeSnapshot`.
  public init(snapshot r: FieldReader) throws(JSONShapeError) {
    self.init()
    if let access = try r.optionalObject("access") {
      self.access = try AccessControl(snapshot: access)
    }
    groups = try r.strings("groups")
    for entry in try r.objects("history") { history.append(try HistoryEntry(reading: entry)) }
    historyRemaining = try r.optionalInt("historyRemaining")
    let images = try r.object("images")
    for member in images.object {
      let image = try images.object(member.key)
      self.images[member.key] = CachedImage(
        path: try image.string("path"), bytes: try image.int("bytes"))
    }
    let requests = try r.object("inFlight")
    for member in requests.object {
      guard let seq = Int(member.key) else {
        throw JSONShapeError(path: requests.fieldPath(member.key), reason: "expected a seq")
      }
      let request = try requests.object(member.key)
      inFlight[seq] = InFlightRequest(
        type: RequestType(rawValue: try request.string("type")),
        since: try Self.timestamp(request, "since"),
        key: try request.optionalString("key"), due: try readTimestamp(request, "due"),
        plan: try readPlanned(request, "plan"))
    }
    let errors = try r.object("lastErrors")
    for member in errors.object {
      lastErrors[member.key] = try RequestError(reading: try errors.object(member.key))
    }
    let previews = try r.object("linkPreviews")
    for member in previews.object {
      let preview = try previews.object(member.key)
      linkPreviews[member.key] = LinkPreview(
        url: try preview.string("url"), title: try preview.optionalString("title"),
        description: try preview.optionalString("description"),
        image: try preview.optionalString("image"))
    }
    let searches = try r.object("searches")
    for member in searches.object {
      var results: [SearchResult] = []
      for result in try searches.objects(member.key) {
        results.append(try SearchResult(reading: result))
      }
      self.searches[member.key] = results
    }
    server = try r.string("server")
    if let session = try r.optionalObject("session") {
      self.session = Session(
        email: try session.string("email"), expiresAt: try readTimestamp(session, "expiresAt"),
        since: try Self.timestamp(session, "since"))
    }
    settings = try readSettings(r, "settings")
    let skills = try r.object("skills")
    for group in skills.object {
      let tags = try skills.object(group.key)
      var bucket: [String: Skill] = [:]
      for tag in tags.object { bucket[tag.key] = try Skill(reading: try tags.object(tag.key)) }
      self.skills[group.key] = bucket
    }
    for entry in try r.objects("transcript") {
      guard let speaker = ChatEntry.Speaker(rawValue: try entry.string("speaker")) else {
        throw JSONShapeError(path: entry.fieldPath("speaker"), reason: "expected user or susi")
      }
      transcript.append(
        ChatEntry(
          seq: try entry.int("seq"), at: try Self.timestamp(entry, "at"), speaker: speaker,
          query: try entry.string("query"),
          answers: entry.has("answers") ? try readAnswers(entry, "answers") : [],
          skill: try entry.optionalString("skill")))
    }
    let ids = try r.array("userRatings")
    let stars = try r.array("userRatingStars")
    guard ids.count == stars.count else {
      throw JSONShapeError(path: r.fieldPath("userRatings"), reason: "one star count per rating")
    }
    for (id, star) in zip(ids, stars) {
      guard let pair = id.array, pair.count == 2, let group = pair[0].string,
        let skill = pair[1].string
      else {
        throw JSONShapeError(path: r.fieldPath("userRatings"), reason: "expected [group, skill]")
      }
      userRatings[SkillID(group: group, skill: skill)] = UserRating(stars: star.int)
    }
  }

  private static func timestamp(_ r: FieldReader, _ key: String) throws(JSONShapeError)
    -> Timestamp
  {
    guard let t = try readTimestamp(r, key) else {
      throw JSONShapeError(path: r.fieldPath(key), reason: "expected an RFC 3339 date-time")
    }
    return t
  }
}

extension AccessControl {
  /// Reads the groups and keys as `write(to:)` wrote them.
  init(snapshot r: FieldReader) throws(JSONShapeError) {
    var groups: [String: AccessGroup] = [:]
    let groupObjects = try r.object("groups")
    for member in groupObjects.object {
      let group = try groupObjects.object(member.key)
      groups[member.key] = AccessGroup(
        privileges: Set(try group.strings("privileges").map(Privilege.init(rawValue:))))
    }
    // The admin group holds every privilege there is, whatever the snapshot lists: one made
    // before an intent was added reads as the state this version's replay of the log gives.
    groups[Self.adminGroup]?.privileges = Set(Privilege.all)
    var keys: [String: AccessKey] = [:]
    let keyObjects = try r.object("keys")
    for member in keyObjects.object {
      let key = try keyObjects.object(member.key)
      guard let issuedAt = try readTimestamp(key, "issuedAt") else {
        throw JSONShapeError(path: key.fieldPath("issuedAt"), reason: "expected a date-time")
      }
      keys[member.key] = AccessKey(
        groups: try key.strings("groups"), label: try key.optionalString("label"),
        issuedBy: try key.string("issuedBy"), issuedAt: issuedAt,
        revokedAt: try readTimestamp(key, "revokedAt"),
        revokedBy: try key.optionalString("revokedBy"))
    }
    self.init(groups: groups, keys: keys)
  }
}
