public import SusiJSON

/// Why a `type` and `payload` do not make an action.
public enum ActionDecodingError: Error, Equatable, Sendable, CustomStringConvertible {
  /// No action has this type name.
  case unknownType(String)
  /// The payload is missing a field, has a wrong type, or (for strict input) an unknown field.
  case invalidPayload(JSONShapeError)

  public var description: String {
    switch self {
    case .unknownType(let type): "unknown action type '\(type)'"
    case .invalidPayload(let error): "invalid payload: \(error)"
    }
  }
}

extension Action {
  /// Writes this action's payload as a JSON object.
  public func writePayload(to w: inout JSONWriter) {
    w.object { o in
      switch self {
      case .setServer(let p): o.field("url", p.url)
      case .signup(let p):
        o.field("email", p.email)
        o.field("password", Secret.redactedText)
      case .login(let p):
        o.field("email", p.email)
        o.field("password", Secret.redactedText)
        o.field("validSeconds", p.validSeconds)
      case .logout, .syncSettings: break
      case .loadGroups(let p): o.field("language", p.language)
      case .loadSkills(let p):
        o.field("group", p.group)
        o.field("language", p.language)
      case .loadSkill(let p):
        o.field("group", p.group)
        o.field("skill", p.skill)
        o.field("language", p.language)
      case .submitRating(let p):
        o.field("group", p.group)
        o.field("skill", p.skill)
        o.field("stars", p.stars)
        o.field("language", p.language)
      case .loadUserRating(let p):
        o.field("group", p.group)
        o.field("skill", p.skill)
        o.field("language", p.language)
      case .changeSettings(let p): o.field("settings") { writeSettings(p.settings, to: &$0) }
      case .sendMessage(let p):
        o.field("query", p.query)
        o.field("language", p.language)
      case .loadHistory: break
      case .search(let p): o.field("query", p.query)
      case .loadLinkPreview(let p): o.field("url", p.url)
      case .cacheImage(let p): o.field("url", p.url)
      case .cancelRequest(let p): o.field("seq", p.seq)
      case .createAccessGroup(let p): p.write(to: &o)
      case .grantPrivilege(let p): p.write(to: &o)
      case .revokePrivilege(let p): p.write(to: &o)
      case .issueKey(let p): p.write(to: &o)
      case .revokeKey(let p): p.write(to: &o)

      case .serverChanged(let p): o.field("url", p.url)
      case .signedUp(let p):
        o.field("email", p.email)
        o.field("message", p.message)
      case .loggedIn(let p):
        o.field("email", p.email)
        o.field("expiresAt", p.expiresAt?.rfc3339)
      case .loginFailed(let p):
        o.field("email", p.email)
        o.field("error") { p.error.write(to: &$0) }
      case .loggedOut(let p): o.field("reason", p.reason.map(Redaction.scrub))
      case .groupsLoaded(let p): o.field("groups", p.groups)
      case .skillsLoaded(let p):
        o.field("group", p.group)
        o.field("skills") { $0.array(p.skills) { w, s in s.write(to: &w) } }
      case .skillLoaded(let p): o.field("skill") { p.skill.write(to: &$0) }
      case .ratingSubmitted(let p):
        o.field("group", p.group)
        o.field("skill", p.skill)
        o.field("stars", p.stars)
        o.field("ratings") { p.ratings.write(to: &$0) }
        if let resolved = p.resolved { o.field("resolved") { resolved.write(to: &$0) } }
      case .userRatingLoaded(let p):
        o.field("group", p.group)
        o.field("skill", p.skill)
        o.fieldOrNull("stars", p.stars)
        if let resolved = p.resolved { o.field("resolved") { resolved.write(to: &$0) } }
      case .settingsChanged(let p): o.field("settings") { writeSettings(p.settings, to: &$0) }
      case .settingsSynced(let p): o.field("settings") { writeSettings(p.settings, to: &$0) }
      case .messageReceived(let p):
        o.field("query", p.query)
        o.field("answers") { writeAnswers(p.answers, to: &$0) }
        o.field("skill", p.skill)
        if !p.planned.isEmpty {
          o.field("planned") { $0.array(p.planned) { w, x in x.write(to: &w) } }
        }
        o.field("anonymous", p.anonymous)
      case .historyLoaded(let p):
        o.field("entries") { $0.array(p.entries) { w, e in e.write(to: &w) } }
        o.field("remaining", p.remaining)
      case .websearchLoaded(let p):
        o.field("query", p.query)
        o.field("results") { $0.array(p.results) { w, r in r.write(to: &w) } }
      case .linkPreviewLoaded(let p):
        o.field("url", p.url)
        o.field("title", p.title)
        o.field("description", p.description)
        o.field("image", p.image)
      case .imageCached(let p):
        o.field("url", p.url)
        o.field("path", p.path)
        o.field("bytes", p.bytes)
      case .requestFailed(let p):
        o.field("cause", p.cause)
        o.field("error") { p.error.write(to: &$0) }
      case .actionRejected(let p): o.field("reason", Redaction.scrub(p.reason))
      }
    }
  }

  /// The payload as a JSON value (secrets redacted).
  public var payloadJSON: JSON {
    var w = JSONWriter()
    writePayload(to: &w)
    // Our own writer's output always parses.
    return (try? JSONParser.parse(w.bytes, maximumDepth: Nesting.readable)) ?? .null
  }

  /// Builds an action from its `type` name and `payload` object.
  ///
  /// - Parameters:
  ///   - payload: the payload; nil or absent means `{}`.
  ///   - strict: refuse unknown payload fields (for input from other programs, where an unknown
  ///     field is most likely a typo).
  public static func decode(type: String, payload: JSON?, strict: Bool = false)
    throws(ActionDecodingError) -> Action
  {
    let object: JSONObject
    switch payload {
    case nil, .null?: object = JSONObject()
    case .object(let o)?: object = o
    case let other?:
      throw .invalidPayload(
        JSONShapeError(path: "payload", reason: "expected an object, found \(other.kindName)"))
    }
    guard let actionType = ActionType(rawValue: type) else { throw .unknownType(type) }
    let r = FieldReader(object, path: "payload")
    do {
      if strict, let allowed = actionType.acceptedFields { try r.rejectUnknownKeys(allowed) }
      return try decodeFields(type: actionType, r)
    } catch let error as JSONShapeError {
      throw .invalidPayload(error)
    } catch let error as ActionDecodingError {
      throw error
    } catch {
      throw .invalidPayload(JSONShapeError(path: "payload", reason: "\(error)"))
    }
  }

  /// Reads the payload of an action of `type` from its fields: the one place that knows each
  /// payload's shape on the way in (`writePayload` is the way out).
  public static func decodeFields(type: ActionType, _ r: FieldReader) throws -> Action {
    switch type {
    case .setServer: return .setServer(SetServer(url: try r.string("url")))
    case .signup:
      return .signup(
        Signup(email: try r.string("email"), password: Secret(try r.string("password"))))
    case .login:
      return .login(
        Login(
          email: try r.string("email"), password: Secret(try r.string("password")),
          validSeconds: try r.optionalInt("validSeconds")))
    case .logout: return .logout
    case .loadGroups: return .loadGroups(LoadGroups(language: try r.optionalString("language")))
    case .loadSkills:
      return .loadSkills(
        LoadSkills(group: try r.optionalString("group"), language: try r.optionalString("language"))
      )
    case .loadSkill:
      return .loadSkill(
        LoadSkill(
          group: try r.string("group"), skill: try r.string("skill"),
          language: try r.optionalString("language")))
    case .submitRating:
      return .submitRating(
        SubmitRating(
          group: try r.string("group"), skill: try r.string("skill"), stars: try r.int("stars"),
          language: try r.optionalString("language")))
    case .loadUserRating:
      return .loadUserRating(
        LoadUserRating(
          group: try r.string("group"), skill: try r.string("skill"),
          language: try r.optionalString("language")))
    case .changeSettings:
      return .changeSettings(ChangeSettings(settings: try readSettings(r, "settings")))
    case .syncSettings: return .syncSettings
    case .sendMessage:
      return .sendMessage(
        SendMessage(query: try r.string("query"), language: try r.optionalString("language")))
    case .loadHistory: return .loadHistory(LoadHistory())
    case .search: return .search(Search(query: try r.string("query")))
    case .loadLinkPreview: return .loadLinkPreview(LoadLinkPreview(url: try r.string("url")))
    case .cacheImage: return .cacheImage(CacheImage(url: try r.string("url")))
    case .cancelRequest: return .cancelRequest(CancelRequest(seq: try r.int("seq")))
    case .createAccessGroup: return .createAccessGroup(try CreateAccessGroup(reading: r))
    case .grantPrivilege: return .grantPrivilege(try GrantPrivilege(reading: r))
    case .revokePrivilege: return .revokePrivilege(try RevokePrivilege(reading: r))
    case .issueKey: return .issueKey(try IssueKey(reading: r))
    case .revokeKey: return .revokeKey(try RevokeKey(reading: r))

    case .serverChanged: return .serverChanged(ServerChanged(url: try r.string("url")))
    case .signedUp:
      return .signedUp(SignedUp(email: try r.string("email"), message: try r.string("message")))
    case .loggedIn:
      return .loggedIn(
        LoggedIn(email: try r.string("email"), expiresAt: try readTimestamp(r, "expiresAt")))
    case .loginFailed:
      return .loginFailed(
        LoginFailed(
          email: try r.string("email"), error: try RequestError(reading: try r.object("error"))))
    case .loggedOut: return .loggedOut(LoggedOut(reason: try r.optionalString("reason")))
    case .groupsLoaded: return .groupsLoaded(GroupsLoaded(groups: try r.strings("groups")))
    case .skillsLoaded:
      var skills: [Skill] = []
      for s in try r.objects("skills") { skills.append(try Skill(reading: s)) }
      return .skillsLoaded(SkillsLoaded(group: try r.optionalString("group"), skills: skills))
    case .skillLoaded:
      return .skillLoaded(SkillLoaded(skill: try Skill(reading: try r.object("skill"))))
    case .ratingSubmitted:
      return .ratingSubmitted(
        RatingSubmitted(
          group: try r.string("group"), skill: try r.string("skill"), stars: try r.int("stars"),
          ratings: try RatingAggregate(reading: try r.object("ratings")),
          resolved: try readResolved(r)))
    case .userRatingLoaded:
      return .userRatingLoaded(
        UserRatingLoaded(
          group: try r.string("group"), skill: try r.string("skill"),
          stars: try r.optionalInt("stars"), resolved: try readResolved(r)))
    case .settingsChanged:
      return .settingsChanged(SettingsChanged(settings: try readSettings(r, "settings")))
    case .settingsSynced:
      return .settingsSynced(SettingsSynced(settings: try readSettings(r, "settings")))
    case .messageReceived:
      let planned = try readPlanned(r, "planned")
      return .messageReceived(
        MessageReceived(
          query: try r.string("query"), answers: try readAnswers(r, "answers"),
          skill: try r.optionalString("skill"), planned: planned,
          anonymous: try r.optionalBool("anonymous")))
    case .historyLoaded:
      var entries: [HistoryEntry] = []
      for e in try r.objects("entries") { entries.append(try HistoryEntry(reading: e)) }
      return .historyLoaded(
        HistoryLoaded(entries: entries, remaining: try r.optionalInt("remaining") ?? 0))
    case .websearchLoaded:
      var results: [SearchResult] = []
      for x in try r.objects("results") { results.append(try SearchResult(reading: x)) }
      return .websearchLoaded(WebsearchLoaded(query: try r.string("query"), results: results))
    case .linkPreviewLoaded:
      return .linkPreviewLoaded(
        LinkPreviewLoaded(
          url: try r.string("url"), title: try r.optionalString("title"),
          description: try r.optionalString("description"), image: try r.optionalString("image")))
    case .imageCached:
      return .imageCached(
        ImageCached(url: try r.string("url"), path: try r.string("path"), bytes: try r.int("bytes"))
      )
    case .requestFailed:
      return .requestFailed(
        RequestFailed(
          cause: try r.int("cause"), error: try RequestError(reading: try r.object("error"))))
    case .actionRejected: return .actionRejected(ActionRejected(reason: try r.string("reason")))
    }
  }
}
