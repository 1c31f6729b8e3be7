import Foundation
import SusiClock
import SusiCore
import SusiHTTPClient
import SusiHTTPTesting
import SusiJSON
import SusiRunner
import SusiServer
import SusiStore
import Testing

/// susi end to end: the store and the effects runner on the real network, against the embedded
/// server over loopback, in a fresh state folder per test.
///
/// Every test ends with `EndToEndRun.finish()`, which replays the log into a fresh state and
/// compares it with the live one, and looks for the password and every access token in every
/// byte the run left behind (log, published lines, state, files).
@Suite(.hangLimit)
struct EndToEndTests {
  // MARK: Accounts and the skill catalogue

  @Test func signsUpLogsInAndBrowsesTheSkillCatalogue() async throws {
    let run = try await EndToEndRun.start()
    let base = run.server.baseURLString
    try await run.signUpAndLogIn("ada@example.org")
    #expect(await run.store.state.session?.email == "ada@example.org")

    guard case .groupsLoaded(let groups) = try await run.result(of: .loadGroups(.init())) else {
      Issue.record("no groups")
      return
    }
    #expect(groups.groups.count == 22)
    #expect(groups.groups.contains("Games, Trivia and Accessories"))

    // Every skill of every group, in exactly one request.
    let before = run.transport.count
    guard case .skillsLoaded(let all) = try await run.result(of: .loadSkills(.init())) else {
      Issue.record("no skills")
      return
    }
    let requests = run.transport.requests(since: before)
    #expect(requests.count == 1)
    #expect(requests.first?.displayURL == base + "/cms/getSkillList.json")
    #expect(requests.first?.url.contains("group=All") == true)
    #expect(all.group == nil)
    #expect(all.skills.count == 35)
    #expect(Set(all.skills.map(\.group)) == Set(groups.groups))
    let state = await run.store.state
    #expect(state.skills.count == 22)
    #expect(state.skills["Knowledge"]?.count == 4)
    for skill in all.skills where skill.image != nil {
      #expect(skill.imageURL?.hasPrefix(base + "/cms/getImage.png?") == true, "\(skill.id)")
    }

    guard
      case .skillsLoaded(let knowledge) = try await run.result(
        of: .loadSkills(.init(group: "Knowledge")))
    else {
      Issue.record("no Knowledge skills")
      return
    }
    #expect(knowledge.group == "Knowledge")
    #expect(
      Set(knowledge.skills.map(\.tag)) == [
        "Capitals", "Noble gases", "Synonyms", "World population",
      ])

    guard
      case .skillLoaded(let loaded) = try await run.result(
        of: .loadSkill(.init(group: "Knowledge", skill: "Synonyms")))
    else {
      Issue.record("no skill details")
      return
    }
    let synonyms = loaded.skill
    #expect(synonyms.id == SkillID(group: "Knowledge", skill: "Synonyms"))
    #expect(synonyms.name == "Synonyms")
    #expect(synonyms.author == "Chen Wu")
    #expect(synonyms.authorEmail == "chen@example.org")
    #expect(synonyms.description == "Points you to synonyms of a word")
    #expect(synonyms.examples == ["synonyms of happy"])
    #expect(synonyms.dynamicContent)
    #expect(synonyms.termsOfUse == nil)
    #expect(await run.store.state.skills["Knowledge"]?["Synonyms"] == synonyms)

    // The image URL points at the embedded server, which serves the skill's own picture.
    let imageURL = try #require(synonyms.imageURL)
    #expect(imageURL.hasPrefix(base + "/cms/getImage.png?"))
    guard
      case .imageCached(let cached) = try await run.result(of: .cacheImage(.init(url: imageURL)))
    else {
      Issue.record("the skill image was not cached")
      return
    }
    let original = try Data(
      contentsOf: ServerConfiguration.bundledDataDirectory.appendingPathComponent(
        "models/general/Knowledge/en/images/synonyms.png"))
    #expect(cached.bytes == original.count)
    #expect(try Data(contentsOf: URL(fileURLWithPath: cached.path)) == original)

    try await run.finish()
  }

  // MARK: Ratings

  /// On a skill whose group and name need percent-encoding (spaces, a comma).
  @Test func ratingsChangeTheAggregateAndEachUserKeepsOneRating() async throws {
    let run = try await EndToEndRun.start()
    try await run.signUpAndLogIn("ada@example.org")
    _ = try await run.result(of: .loadSkills(.init(group: "Games, Trivia and Accessories")))

    let rate = { (stars: Int) in
      Action.submitRating(
        .init(group: "Games, Trivia and Accessories", skill: "Flip a coin", stars: stars))
    }
    guard case .ratingSubmitted(let first) = try await run.result(of: rate(4)) else {
      Issue.record("the first rating failed")
      return
    }
    #expect(first.ratings.countsFiveToOne == [0, 1, 0, 0, 0])
    #expect(first.ratings.total == 1)
    #expect(first.ratings.average == 4)

    let readOwn = Action.loadUserRating(
      .init(group: "Games, Trivia and Accessories", skill: "Flip a coin"))
    #expect(
      try await run.result(of: readOwn)
        == .userRatingLoaded(
          .init(group: "Games, Trivia and Accessories", skill: "Flip a coin", stars: 4)))
    #expect(
      try await run.result(
        of: .loadUserRating(.init(group: "Games, Trivia and Accessories", skill: "Roll a die")))
        == .userRatingLoaded(
          .init(group: "Games, Trivia and Accessories", skill: "Roll a die", stars: nil)))
    var state = await run.store.state
    #expect(
      state.userRatings[SkillID(group: "Games, Trivia and Accessories", skill: "Flip a coin")]
        == UserRating(stars: 4))
    #expect(
      state.userRatings[SkillID(group: "Games, Trivia and Accessories", skill: "Roll a die")]
        == UserRating(stars: nil))

    // A second user's rating counts on its own.
    try await run.signUpAndLogIn("grace@example.org")
    #expect(await run.store.state.userRatings.isEmpty)
    guard case .ratingSubmitted(let second) = try await run.result(of: rate(2)) else {
      Issue.record("the second user's rating failed")
      return
    }
    #expect(second.ratings.countsFiveToOne == [0, 1, 0, 1, 0])
    #expect(second.ratings.total == 2)
    #expect(second.ratings.average == 3)

    // The first user rating again replaces their rating instead of adding one.
    try await run.logIn("ada@example.org")
    #expect(
      try await run.result(of: readOwn)
        == .userRatingLoaded(
          .init(group: "Games, Trivia and Accessories", skill: "Flip a coin", stars: 4)))
    guard case .ratingSubmitted(let again) = try await run.result(of: rate(5)) else {
      Issue.record("the repeated rating failed")
      return
    }
    #expect(again.ratings.countsFiveToOne == [1, 0, 0, 1, 0])
    #expect(again.ratings.total == 2)
    #expect(again.ratings.average == 3.5)
    #expect(
      try await run.result(of: readOwn)
        == .userRatingLoaded(
          .init(group: "Games, Trivia and Accessories", skill: "Flip a coin", stars: 5)))

    state = await run.store.state
    // The state takes the reply's star counts (and keeps the thumbs counts the reply lacks).
    let stored = state.skills["Games, Trivia and Accessories"]?["Flip a coin"]?.rating
    #expect(stored?.countsFiveToOne == again.ratings.countsFiveToOne)
    #expect(stored?.average == again.ratings.average)
    #expect(stored?.total == again.ratings.total)
    // The server's skill details agree.
    guard
      case .skillLoaded(let reloaded) = try await run.result(
        of: .loadSkill(.init(group: "Games, Trivia and Accessories", skill: "Flip a coin")))
    else {
      Issue.record("no skill details")
      return
    }
    #expect(reloaded.skill.rating?.countsFiveToOne == [1, 0, 0, 1, 0])
    #expect(reloaded.skill.rating?.average == 3.5)

    try await run.finish()
  }

  // MARK: Settings

  @Test func changesSeveralSettingsInOneCallAndSyncsThemBackTyped() async throws {
    let run = try await EndToEndRun.start()
    try await run.signUpAndLogIn("ada@example.org")
    let wanted: [String: SettingValue] = [
      "theme": .string("dark"), "speechRate": .number(1.5), "enterAsSend": .bool(false),
      "micInput": .bool(true), "userName": .string("Zoë & Co + 100%"),
    ]

    let before = run.transport.count
    #expect(
      try await run.result(of: .changeSettings(.init(settings: wanted)))
        == .settingsChanged(.init(settings: wanted)))
    #expect(run.transport.count == before + 1)

    guard case .settingsSynced(let synced) = try await run.result(of: .syncSettings) else {
      Issue.record("the settings did not sync")
      return
    }
    for (key, value) in wanted {
      #expect(synced.settings[key] == value, "\(key)")
    }
    #expect(await run.store.state.settings == synced.settings)

    try await run.finish()
  }

  // MARK: Chat

  /// One query per action type the default skills produce, with what it must decode to.
  @Test func chatDecodesEveryActionTypeTheDefaultSkillsProduce() async throws {
    let run = try await EndToEndRun.start()
    let base = run.server.baseURLString

    func answers(_ query: String, sourceLocation: SourceLocation = #_sourceLocation) async throws
      -> [AnswerAction]
    {
      let result = try await run.result(
        of: .sendMessage(.init(query: query)), sourceLocation: sourceLocation)
      guard case .messageReceived(let message) = result else {
        Issue.record("\(query): \(result)", sourceLocation: sourceLocation)
        return []
      }
      #expect(message.query == query, sourceLocation: sourceLocation)
      #expect(message.planned.isEmpty, sourceLocation: sourceLocation)
      return message.answers
    }
    func text(_ expression: String) -> AnswerAction {
      .answer(expression: expression, language: "en", mood: nil)
    }

    let coin = try await answers("flip a coin")
    #expect(coin == [text("heads")] || coin == [text("tails")], "\(coin)")

    #expect(
      try await answers("show me the noble gases") == [
        text("These are the noble gases:"),
        .table(
          columns: [
            TableColumn(key: "element", header: "Element"),
            TableColumn(key: "symbol", header: "Symbol"),
            TableColumn(key: "number", header: "Atomic number"),
          ],
          rows: [
            ["Helium", "He", 2], ["Neon", "Ne", 10], ["Argon", "Ar", 18], ["Krypton", "Kr", 36],
            ["Xenon", "Xe", 54], ["Radon", "Rn", 86],
          ]),
      ])

    #expect(
      try await answers("show me the news") == [
        text("Here are the latest headlines:"),
        .rss(items: [
          FeedItem(
            title: "Local assistant answers without a network",
            description:
              "A SUSI-compatible server now runs inside the client and keeps working offline.",
            link: base + "/pages/susi.html"),
          FeedItem(
            title: "Café culture in the old town",
            description:
              "A page written in ISO-8859-1, to test how previews handle older charsets.",
            link: base + "/pages/cafe.html"),
          FeedItem(
            title: "Pancakes for everyone",
            description: "A simple recipe that needs only a bowl and a pan.",
            link: base + "/pages/pancakes.html"),
        ]),
      ])

    #expect(
      try await answers("search for susi") == [
        text("Here is what the web says about susi:"), .websearch(query: "susi", count: nil),
      ])

    #expect(
      try await answers("synonyms of happy") == [
        text("Here are some words that mean about the same as happy."),
        .anchor(link: "https://www.thesaurus.com/browse/happy", text: "Synonyms of happy"),
      ])

    #expect(
      try await answers("where is berlin") == [
        text("Here is Berlin on the map."), .map(latitude: 52.52, longitude: 13.405, zoom: 13),
      ])

    #expect(
      try await answers("world population by continent") == [
        text("Roughly this share of all people lives on each continent:"),
        .piechart(
          slices: [
            PieSlice(label: "Asia", value: 59.4), PieSlice(label: "Africa", value: 17.6),
            PieSlice(label: "Europe", value: 9.4), PieSlice(label: "North America", value: 7.5),
            PieSlice(label: "South America", value: 5.5), PieSlice(label: "Oceania", value: 0.6),
          ], unit: "%"),
      ])

    #expect(
      try await answers("play a video") == [
        text("Here is a short film to watch."),
        .videoPlay(identifier: "aqz-KE-bpKQ", identifierType: "youtube"),
      ])

    #expect(
      try await answers("play some music") == [
        text("Playing something calm for you."),
        .audioPlay(identifier: "jfKfPfyJRdk", identifierType: "youtube"),
      ])

    #expect(
      try await answers("set volume to 40") == [
        text("Volume set to 40."), .audioVolume(volume: 40),
      ])

    #expect(try await answers("stop the music") == [text("Stopping."), .control(.stop)])

    #expect(
      try await answers("show me the moon") == [
        text("Here is the Moon."),
        .imageShow(
          url: base
            + "/cms/getImage.png?model=general&language=en&group=Interests&image=images/moon.png"),
      ])

    let unknown = "what is the airspeed velocity of an unladen swallow"
    #expect(
      try await answers(unknown) == [
        .answer(
          expression: "I don't know the answer to that question.", language: "en", mood: "sabta"),
        .websearch(query: unknown, count: nil),
      ])

    // Every query and every answer is in the transcript, in order.
    let transcript = await run.store.state.transcript
    #expect(transcript.count == 26)
    #expect(
      transcript.map(\.speaker)
        == Array(repeating: [ChatEntry.Speaker.user, .susi], count: 13).flatMap { $0 })

    try await run.finish(expectingTokens: false)
  }

  /// The longest query the reducer lets through is 4000 characters; percent-encoded, CJK text
  /// that long is 36 KB, far past the 8 KiB request line servers accept in a URL.
  @Test func theLongestQueryAllowedIsAnswered() async throws {
    let run = try await EndToEndRun.start()
    let query = String(repeating: "日本", count: 2000)
    let before = run.transport.count
    guard
      case .messageReceived(let message) = try await run.result(
        of: .sendMessage(.init(query: query)))
    else {
      Issue.record("the long query was not answered")
      return
    }
    #expect(message.query == query)
    #expect(
      message.answers.first
        == .answer(
          expression: "I don't know the answer to that question.", language: "en", mood: "sabta"))
    let sent = try #require(run.transport.requests(since: before).first)
    #expect(sent.displayURL == run.server.baseURLString + "/susi/chat.json")
    #expect(sent.url.utf8.count <= 4096)

    try await run.finish(expectingTokens: false)
  }

  @Test func aPlannedAnswerArrivesWhenItsDelayHasPassed() async throws {
    let run = try await EndToEndRun.start()
    try await run.signUpAndLogIn("ada@example.org")

    // Send the query and stop waiting once the immediate answer is in: the planned one waits
    // for the clock.
    let sent = try await run.send(.sendMessage(.init(query: "set a timer for 10 seconds"))) {
      results in
      results.contains { $0.action.type == .messageReceived }
    }
    let answer = try #require(sent.last)
    guard case .messageReceived(let now) = answer.action else {
      Issue.record("no answer: \(answer.action)")
      return
    }
    #expect(
      now.answers == [.answer(expression: "Timer set for 10 seconds.", language: "en", mood: nil)])
    #expect(
      now.planned == [
        PlannedAnswer(
          delayMilliseconds: 10_000,
          answers: [.answer(expression: "Your 10 second timer is done.", language: "en", mood: nil)]
        )
      ])
    #expect(await run.store.hasPendingResults(for: answer.seq))
    #expect(await run.store.state.inFlight[answer.seq]?.type == "plannedAnswer")

    // Nothing arrives before the delay has passed; then the planned answer does, caused by the
    // answer that carried it.
    let events = run.store.events(after: await run.store.lastSeq)
    await run.advancePlannedAnswer(by: 10_000)
    var later: Event?
    for try await published in events where published.event.cause == answer.seq {
      later = published.event
      break
    }
    let delivered = try #require(later)
    #expect(delivered.at == answer.at.adding(milliseconds: 10_000))
    #expect(
      delivered.action
        == .messageReceived(
          .init(
            query: "set a timer for 10 seconds",
            answers: [
              .answer(expression: "Your 10 second timer is done.", language: "en", mood: nil)
            ],
            skill: now.skill)))
    #expect(await run.store.state.inFlight.isEmpty)
    #expect(await run.store.state.transcript.last?.answers.count == 1)

    try await run.finish()
  }

  @Test func historyPagesThroughThePastChatsNewestFirst() async throws {
    let run = try await EndToEndRun.start()
    try await run.signUpAndLogIn("ada@example.org")
    let queries =
      ["flip a coin", "show me the noble gases", "where is berlin"]
      + (1...9).map { "question \($0)" }
    for query in queries {
      _ = try await run.result(of: .sendMessage(.init(query: query)))
      await run.serverClock.advance(by: .seconds(1))
    }

    // The server hands out ten at a time, newest first.
    guard case .historyLoaded(let newest) = try await run.result(of: .loadHistory(.init())) else {
      Issue.record("no history")
      return
    }
    #expect(newest.entries.map(\.query) == Array(queries.reversed().prefix(10)))
    #expect(newest.remaining == 2)
    let berlin = try #require(newest.entries.last)
    #expect(berlin.query == "where is berlin")
    #expect(
      berlin.answers == [
        .answer(expression: "Here is Berlin on the map.", language: "en", mood: nil),
        .map(latitude: 52.52, longitude: 13.405, zoom: 13),
      ])
    let dates = newest.entries.compactMap(\.queryDate)
    #expect(dates.count == 10)
    #expect(dates == dates.sorted(by: >))

    // The next page is asked for by the oldest date held, which the server must read back.
    let before = run.transport.count
    guard case .historyLoaded(let older) = try await run.result(of: .loadHistory(.init())) else {
      Issue.record("no older history")
      return
    }
    #expect(run.transport.requests(since: before).first?.url.contains("date=") == true)
    #expect(older.entries.map(\.query) == ["show me the noble gases", "flip a coin"])
    #expect(older.remaining == 0)

    let state = await run.store.state
    #expect(state.history.map(\.query) == queries.reversed())
    #expect(state.historyRemaining == 0)

    try await run.finish()
  }

  // MARK: The web

  @Test func searchesTheWebAndPreviewsLocalPages() async throws {
    let run = try await EndToEndRun.start()
    let base = run.server.baseURLString

    guard
      case .websearchLoaded(let search) = try await run.result(of: .search(.init(query: "susi")))
    else {
      Issue.record("no search results")
      return
    }
    #expect(search.query == "susi")
    let first = try #require(search.results.first)
    #expect(first.title == "SUSI.AI")
    #expect(first.link == base + "/pages/susi.html")
    #expect(first.icon == base + "/i/susi.png")
    #expect(
      search.results.contains {
        $0.link == "https://github.com/fossasia/susi_server" && $0.title == "susi_server"
      })
    #expect(search.results.contains { $0.link == "https://github.com/fossasia/susi_iOS" })
    #expect(await run.store.state.searches["susi"] == search.results)

    // A UTF-8 page with a relative og:image.
    #expect(
      try await run.result(of: .loadLinkPreview(.init(url: base + "/pages/susi.html")))
        == .linkPreviewLoaded(
          .init(
            url: base + "/pages/susi.html", title: "SUSI, offline",
            description:
              "Chat, skills, ratings and web search, served from the machine you are on.",
            image: base + "/pages/susi-card.png")))
    // An ISO-8859-1 page, declared only in a meta tag.
    #expect(
      try await run.result(of: .loadLinkPreview(.init(url: base + "/pages/cafe.html")))
        == .linkPreviewLoaded(
          .init(
            url: base + "/pages/cafe.html", title: "Café Müller",
            description: "Süße Grüße aus der Altstadt - geöffnet täglich.",
            image: base + "/pages/cafe.jpg")))
    // A page with only <title> and meta description.
    guard
      case .linkPreviewLoaded(let plain) = try await run.result(
        of: .loadLinkPreview(.init(url: base + "/pages/plain.html")))
    else {
      Issue.record("no preview of the plain page")
      return
    }
    #expect(plain.title?.isEmpty == false)
    #expect(plain.description?.isEmpty == false)
    #expect(plain.image == nil)

    try await run.finish(expectingTokens: false)
  }

  @Test func tenConcurrentRequestsForOneImageDownloadItOnce() async throws {
    let run = try await EndToEndRun.start()
    let url = run.server.baseURLString + "/pages/susi-card.png"

    let results = try await withThrowingTaskGroup(of: [Event].self) { group in
      for _ in 0..<10 {
        group.addTask { try await run.send(.cacheImage(.init(url: url))) }
      }
      var all: [[Event]] = []
      for try await events in group { all.append(events) }
      return all
    }

    #expect(run.transport.requests.filter { $0.url == url }.count == 1)
    #expect(run.transport.count == 1)
    #expect(Set(results.map { $0.first?.seq }).count == 10)
    let original = try Data(
      contentsOf: ServerConfiguration.bundledDataDirectory.appendingPathComponent(
        "pages/susi-card.png"))
    var paths: Set<String> = []
    for events in results {
      #expect(events.count == 2)
      guard case .imageCached(let cached)? = events.last?.action else {
        Issue.record("no image: \(events.map(\.action))")
        continue
      }
      #expect(events.last?.cause == events.first?.seq)
      #expect(cached.url == url)
      #expect(cached.bytes == original.count)
      paths.insert(cached.path)
    }
    #expect(paths.count == 1)
    let path = try #require(paths.first)
    #expect(path.hasPrefix(run.folder + "/images/"))
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
    #expect(await run.store.state.images[url] == CachedImage(path: path, bytes: original.count))

    try await run.finish(expectingTokens: false)
  }

  // MARK: The end of a session

  @Test func afterLogoutTheReducerRefusesCallsThatNeedLogin() async throws {
    let run = try await EndToEndRun.start()
    try await run.signUpAndLogIn("ada@example.org")

    #expect(try await run.result(of: .logout) == .loggedOut(.init(reason: nil)))
    #expect(run.credentialsFiles().isEmpty)
    #expect(await run.store.state.session == nil)

    let before = run.transport.count
    guard
      case .actionRejected(let rejected) = try await run.result(
        of: .changeSettings(.init(settings: ["theme": .string("dark")])))
    else {
      Issue.record("a settings change went ahead without a login")
      return
    }
    #expect(rejected.reason.contains("log in"))
    #expect(run.transport.count == before)

    try await run.finish()
  }

  @Test func anExpiredSessionEndsWhenTheServerRefusesIt() async throws {
    let run = try await EndToEndRun.start()
    try await run.signUpAndLogIn("ada@example.org", validSeconds: 60)
    #expect(
      await run.store.state.session?.expiresAt == run.clock.now().adding(milliseconds: 60_000))

    // The server's clock passes the token's end; the client's has not, so it still sends it.
    await run.serverClock.advance(by: .seconds(120))
    let events = try await run.send(.syncSettings)
    #expect(events.map(\.action.type) == [.syncSettings, .requestFailed, .loggedOut])
    guard case .requestFailed(let failed)? = events.dropFirst().first?.action else {
      Issue.record("the sync did not fail")
      return
    }
    #expect(failed.error.kind == .unauthorized)
    #expect(failed.error.status == 401)
    guard case .loggedOut(let loggedOut)? = events.last?.action else {
      Issue.record("the session did not end")
      return
    }
    #expect(loggedOut.reason?.contains("ada@example.org") == true)
    #expect(events.last?.cause == events.dropFirst().first?.seq)
    let state = await run.store.state
    #expect(state.session == nil)
    #expect(state.lastErrors["syncSettings"]?.kind == .unauthorized)
    #expect(run.credentialsFiles().isEmpty)

    try await run.finish()
  }

  @Test func aSessionPastItsExpiryEndsWithoutAskingTheServer() async throws {
    let run = try await EndToEndRun.start()
    try await run.signUpAndLogIn("ada@example.org", validSeconds: 60)

    // The client's own clock passes the token's end: the reducer refuses and logs out, and the
    // runner does not send the dead token anywhere.
    await run.clock.advance(by: .milliseconds(61_000))
    let before = run.transport.count
    let events = try await run.send(.changeSettings(.init(settings: ["theme": .string("dark")])))
    #expect(events.map(\.action.type) == [.changeSettings, .actionRejected, .loggedOut])
    guard case .actionRejected(let rejected)? = events.dropFirst().first?.action else {
      Issue.record("the change was not refused")
      return
    }
    #expect(rejected.reason.contains("expired"))
    #expect(events.last?.action == .loggedOut(.init(reason: "session expired")))
    #expect(run.transport.count == before)
    #expect(await run.store.state.session == nil)
    #expect(await run.store.state.settings.isEmpty)
    #expect(run.credentialsFiles().isEmpty)

    try await run.finish()
  }

  @Test func aChatAnsweredAnonymouslyEndsTheSession() async throws {
    let run = try await EndToEndRun.start()
    try await run.signUpAndLogIn("ada@example.org", validSeconds: 60)
    guard
      case .messageReceived(let before) = try await run.result(
        of: .sendMessage(.init(query: "flip a coin")))
    else {
      Issue.record("no answer")
      return
    }
    #expect(before.anonymous == false)

    // Chat works without a login, so the server answers an expired token anonymously; that
    // answer is kept and the session ends.
    await run.serverClock.advance(by: .seconds(120))
    let events = try await run.send(.sendMessage(.init(query: "flip a coin")))
    #expect(events.map(\.action.type) == [.sendMessage, .messageReceived, .loggedOut])
    guard case .messageReceived(let after)? = events.dropFirst().first?.action else {
      Issue.record("no answer")
      return
    }
    #expect(after.anonymous == true)
    #expect(after.answers.count == 1)
    guard case .loggedOut(let loggedOut)? = events.last?.action else {
      Issue.record("the session did not end")
      return
    }
    #expect(loggedOut.reason?.contains("ada@example.org") == true)
    #expect(await run.store.state.session == nil)
    #expect(await run.store.state.transcript.count == 4)

    try await run.finish()
  }
}
