import SusiJSON

extension State {
  /// The whole state as compact canonical JSON: object keys sorted, so equal states give equal
  /// bytes (the basis of `replay --verify` digests).
  public func canonicalJSON() -> [UInt8] { json.compactBytes }

  /// The state as a JSON value (keys sorted).
  public var json: JSON {
    var w = JSONWriter(capacity: 4096)
    write(to: &w)
    // Nested values are written by the log's writers, in the log's field order, and hold the
    // server's data in its own order; sort every object so the form is canonical throughout.
    return ((try? JSONParser.parse(w.bytes)) ?? .null).sortedRecursively()
  }

  func write(to w: inout JSONWriter) {
    w.object { o in
      o.field("groups", groups)
      o.field("history") { $0.array(history) { w, e in e.write(to: &w) } }
      o.field("historyRemaining", historyRemaining)
      o.field("images") {
        $0.sortedObject(images) { w, image in
          w.object { $0.field("bytes", image.bytes); $0.field("path", image.path) }
        }
      }
      o.field("inFlight") {
        $0.sortedObject(Dictionary(uniqueKeysWithValues: inFlight.map { (String($0.key), $0.value) }), numericKeys: true) {
          w, request in
          w.object {
            $0.field("key", request.key)
            $0.field("since", request.since.rfc3339)
            $0.field("type", request.type)
          }
        }
      }
      o.field("lastErrors") { $0.sortedObject(lastErrors) { w, error in error.write(to: &w) } }
      o.field("linkPreviews") {
        $0.sortedObject(linkPreviews) { w, preview in
          w.object {
            $0.field("description", preview.description)
            $0.field("image", preview.image)
            $0.field("title", preview.title)
            $0.field("url", preview.url)
          }
        }
      }
      o.field("searches") { $0.sortedObject(searches) { w, results in w.array(results) { w, r in r.write(to: &w) } } }
      o.field("server", server)
      o.field("session") { w in
        if let session {
          w.object {
            $0.field("email", session.email)
            $0.field("expiresAt", session.expiresAt?.rfc3339)
            $0.field("since", session.since.rfc3339)
          }
        } else {
          w.raw("null")
        }
      }
      o.field("settings") { writeSettings(settings, to: &$0) }
      o.field("skills") { $0.sortedObject(skills) { w, group in w.sortedObject(group) { w, s in s.write(to: &w) } } }
      o.field("transcript") {
        $0.array(transcript) { w, entry in
          w.object {
            if entry.speaker == .susi { $0.field("answers") { writeAnswers(entry.answers, to: &$0) } }
            $0.field("at", entry.at.rfc3339)
            $0.field("query", entry.query)
            $0.field("seq", entry.seq)
            $0.field("skill", entry.skill)
            $0.field("speaker", entry.speaker.rawValue)
          }
        }
      }
      o.field("userRatings") {
        $0.sortedObject(Dictionary(uniqueKeysWithValues: userRatings.map { ("\($0.key.group)/\($0.key.skill)", $0.value) })) {
          w, rating in
          if let stars = rating.stars { w.int(stars) } else { w.raw("null") }
        }
      }
    }
  }
}

extension JSONWriter {
  /// Writes a dictionary as an object with its keys in a stable order: by UTF-8 bytes, or by
  /// numeric value when `numericKeys`.
  mutating func sortedObject<V>(
    _ dictionary: [String: V], numericKeys: Bool = false, _ value: (inout JSONWriter, V) -> Void
  ) {
    let keys = dictionary.keys.sorted { a, b in
      if numericKeys, let x = Int(a), let y = Int(b) { return x < y }
      return a.utf8.lexicographicallyPrecedes(b.utf8)
    }
    object { o in
      for key in keys { o.field(dynamic: key) { value(&$0, dictionary[key]!) } }
    }
  }
}
