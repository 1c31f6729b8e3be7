import SusiCore
import SusiJSON

/// At least one action of every type, with payloads that use every field and every kind of
/// answer, for the codec tests.
enum SampleActions {
  static let fullSkill = Skill(
    tag: "Flip a coin", group: "Games, Trivia and Accessories", language: "de", model: "general",
    name: "Münzwurf", description: "Wirft eine Münze \"fair\"", author: "SUSI Team",
    authorURL: "https://github.com/fossasia", authorEmail: "team@susi.ai", image: "images/coin.png",
    imageURL: "http://localhost:4000/cms/getImage.png?image=coin.png",
    examples: ["flip a coin", "wirf"],
    dynamicContent: true, termsOfUse: "none", developerPrivacyPolicy: "https://susi.ai/privacy",
    rating: RatingAggregate(
      oneStar: 1, twoStar: 2, threeStar: 3, fourStar: 4, fiveStar: 5, average: 3.67, total: 15,
      positive: 7,
      negative: 2, feedbackCount: 3, bookmarkCount: 1),
    usageCount: 1234, lastModified: "2020-09-07 21:16:14", created: "2017-01-01 00:00:00",
    languages: ["de", "en"])

  static let everyAnswer: [AnswerAction] =
    [
      .answer(expression: "Hello \"there\"\n", language: "en", mood: "sabta"),
      .answer(expression: "", language: nil, mood: nil),
      .table(
        columns: [
          TableColumn(key: "name", header: "Name"), TableColumn(key: "n", header: "Count"),
        ],
        rows: [["Berlin", 3_645_000, 891.7, nil, true], [["nested": ["deep": []]], "é"]]),
      .rss(items: [FeedItem(title: "T", description: "D", link: "https://l.example"), FeedItem()]),
      .websearch(query: "swift", count: 3),
      .websearch(query: "kotlin", count: nil),
      .anchor(link: "https://susi.ai", text: "SUSI"),
      .map(latitude: 52.52, longitude: 13.405, zoom: 13),
      .map(latitude: -33.0, longitude: 0, zoom: 1),
      .piechart(
        slices: [PieSlice(label: "A", value: 60), PieSlice(label: "B", value: 40.5)], unit: "%"),
      .piechart(slices: [], unit: nil),
      .videoPlay(identifier: "dQw4w9WgXcQ", identifierType: "youtube"),
      .audioPlay(identifier: "https://a.example/x.mp3", identifierType: "url"),
      .audioVolume(volume: 70),
      .imageShow(url: "https://i.example/cat.png"),
      .timerSet(time: "2026-11-21T10:05:00Z"),
    ] + ControlAction.allCases.map { AnswerAction.control($0) } + [
      .unknown(type: "future_card", raw: ["title": "x", "items": [1, 2], "flag": false]),
      .unknown(type: "bare", raw: .null),
    ]

  static let all: [Action] = [
    .setServer(.init(url: "http://localhost:4000")),
    .signup(.init(email: Fixture.email, password: Secret("hunter2"))),
    .recoverPassword(.init(email: Fixture.email)),
    .login(.init(email: Fixture.email, password: Secret("hunter2"))),
    .login(.init(email: Fixture.email, password: Secret("p@ss word"), validSeconds: 3600)),
    .logout,
    .loadGroups(.init()),
    .loadGroups(.init(language: "de")),
    .loadSkills(.init()),
    .loadSkills(.init(group: "Knowledge", language: "en")),
    .loadSkill(.init(group: "Knowledge", skill: "Synonyms")),
    .loadSkill(.init(group: "Knowledge", skill: "Synonyms", language: "fr")),
    .submitRating(.init(group: "Knowledge", skill: "Synonyms", stars: 4)),
    .submitRating(.init(group: "Knowledge", skill: "Synonyms", stars: 1, language: "de")),
    .loadUserRating(.init(group: "Knowledge", skill: "Synonyms")),
    .loadUserRating(.init(group: "Knowledge", skill: "Synonyms", language: "en")),
    .changeSettings(
      .init(settings: [
        "theme": .string("dark"), "micInput": .bool(true), "speechRate": .number(0.75),
        "speechPitch": .number(2), "userName": .string("Ada \u{1F600}"),
      ])),
    .syncSettings,
    .sendMessage(.init(query: "what is \"swift\"?\ttab\\slash")),
    .sendMessage(.init(query: "wie spät ist es", language: "de")),
    .loadHistory(.init()),
    .search(.init(query: "swift language")),
    .loadLinkPreview(.init(url: "https://swift.org/?a=1&b=2")),
    .cacheImage(.init(url: "https://swift.org/logo.png")),
    .cancelRequest(.init(seq: 12)),
    .createAccessGroup(.init(by: "key_00000000000000a1", group: "raters")),
    .grantPrivilege(.init(by: "key_00000000000000a1", group: "raters", privilege: "submitRating")),
    .revokePrivilege(.init(by: "local", group: "raters", privilege: "search")),
    .issueKey(.init(by: "local", key: "key_00000000000000a1", groups: ["admin"], label: "ci")),
    .issueKey(
      .init(by: "key_00000000000000a1", key: "key_00000000000000b2", groups: ["default", "raters"])),
    .revokeKey(.init(by: "local", key: "key_00000000000000b2")),

    .serverChanged(.init(url: "embedded")),
    .signedUp(.init(email: Fixture.email, message: "You successfully signed-up! Check your mail.")),
    .passwordRecoveryRequested(
      .init(email: Fixture.email, mailed: true, message: "Recovery email sent to your email ID.")),
    .passwordRecoveryRequested(
      .init(email: Fixture.email, mailed: false, message: "Mail sending disabled")),
    .loggedIn(.init(email: Fixture.email, expiresAt: nil)),
    .loggedIn(.init(email: Fixture.email, expiresAt: Timestamp(milliseconds: 1_795_946_400_123))),
    .loginFailed(
      .init(
        email: Fixture.email,
        error: RequestError(kind: .unauthorized, status: 401, message: "wrong password"))),
    .loginFailed(
      .init(email: Fixture.email, error: RequestError(kind: .network, message: "no route to host"))
    ),
    .loggedOut(.init()),
    .loggedOut(.init(reason: "session expired")),
    .groupsLoaded(.init(groups: ["Knowledge", "Games, Trivia and Accessories", "Ünïcödé"])),
    .groupsLoaded(.init(groups: [])),
    .skillsLoaded(.init(group: nil, skills: [fullSkill, Fixture.radio])),
    .skillsLoaded(.init(group: "Knowledge", skills: [])),
    .skillLoaded(.init(skill: fullSkill)),
    .skillLoaded(.init(skill: Skill(tag: "Minimal", group: "G"))),
    .ratingSubmitted(
      .init(group: "Knowledge", skill: "Synonyms", stars: 5, ratings: Fixture.ratings)),
    .ratingSubmitted(
      .init(group: "Knowledge", skill: "Synonyms", stars: 1, ratings: RatingAggregate())),
    .userRatingLoaded(.init(group: "Knowledge", skill: "Synonyms", stars: 3)),
    .userRatingLoaded(.init(group: "Knowledge", skill: "Synonyms", stars: nil)),
    .userRatingLoaded(
      .init(group: "Music", skill: "Radio", stars: 2, resolved: Fixture.radio)),
    .ratingSubmitted(
      .init(
        group: "Music", skill: "Radio", stars: 2, ratings: RatingAggregate(twoStar: 1),
        resolved: Fixture.radio)),
    .settingsChanged(.init(settings: ["theme": .string("light"), "speechRate": .number(1e20)])),
    .settingsSynced(.init(settings: [:])),
    .settingsSynced(
      .init(settings: [
        "prefLanguage": .string("de"), "enterAsSend": .bool(false), "speechPitch": .number(-0.5),
      ])),
    .messageReceived(.init(query: "hi", answers: [Fixture.answer("Hello!")])),
    .messageReceived(
      .init(
        query: "show me everything", answers: everyAnswer,
        skill: "/general/Knowledge/en/everything.txt",
        planned: [
          PlannedAnswer(delayMilliseconds: 1500, answers: [Fixture.answer("later")]),
          PlannedAnswer(delayMilliseconds: 3000, answers: []),
        ],
        anonymous: false)),
    .messageReceived(.init(query: "who am i", answers: [], anonymous: true)),
    .historyLoaded(
      .init(
        entries: [Fixture.history("b", at: 2000), Fixture.history("a", at: nil)], remaining: 17)),
    .historyLoaded(.init(entries: [], remaining: 0)),
    .websearchLoaded(
      .init(
        query: "swift",
        results: [
          SearchResult(
            title: "Swift", description: "A language", link: "https://swift.org",
            icon: "https://i.example/s.png"),
          SearchResult(title: "Bare", link: "https://bare.example"),
        ])),
    .linkPreviewLoaded(.init(url: "https://swift.org")),
    .linkPreviewLoaded(
      .init(
        url: "https://swift.org", title: "Swift", description: "The language",
        image: "https://swift.org/og.png")),
    .imageCached(
      .init(
        url: "https://swift.org/logo.png", path: "/home/u/.cache/susi/images/ab12.png",
        bytes: 48_213)),
    .requestFailed(
      .init(cause: 7, error: RequestError(kind: .http, status: 502, message: "bad gateway"))),
    .requestFailed(.init(cause: 8, error: RequestError(kind: .cancelled, message: "superseded"))),
    .actionRejected(.init(reason: "stars must be 1 to 5, not 9")),
  ]

  /// What `action` looks like after a trip through the log: passwords are not stored.
  static func redacted(_ action: Action) -> Action {
    switch action {
    case .login(var p):
      p.password = Secret(Secret.redactedText)
      return .login(p)
    case .signup(var p):
      p.password = Secret(Secret.redactedText)
      return .signup(p)
    default:
      return action
    }
  }
}
