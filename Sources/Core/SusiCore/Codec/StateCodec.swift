public import SusiJSON

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
    return ((try? JSONParser.parse(w.bytes, maximumDepth: Nesting.readable)) ?? .null)
      .sortedRecursively()
  }

  func write(to w: inout JSONWriter) {
    w.object { o in
      // `access` is left out while untouched, so logs that never used it keep their digests.
      for field in State.fields where field.name != "access" || access != AccessControl.initial {
        o.field(dynamic: field.name) { field.write(self, &$0) }
      }
    }
  }

  /// One top-level field of the state: its name, how to write it, and whether two states differ
  /// in it (cheap when they share storage, which is what a diff of one step needs).
  public struct Field: Sendable {
    public let name: String
    let write: @Sendable (State, inout JSONWriter) -> Void
    let differs: @Sendable (State, State) -> Bool

    /// The field's value in `state`, as JSON.
    public func json(in state: State) -> JSON {
      var w = JSONWriter()
      write(state, &w)
      return (try? JSONParser.parse(w.bytes, maximumDepth: Nesting.readable)) ?? .null
    }

    /// Whether `a` and `b` differ in this field.
    public func differs(_ a: State, _ b: State) -> Bool { differs(a, b) }
  }

  /// The fields in canonical (sorted) order.
  public static let fields: [Field] = [
    Field(
      name: "access", write: { s, w in s.access.write(to: &w) }, differs: { $0.access != $1.access }
    ),
    Field(
      name: "groups", write: { s, w in w.array(s.groups) { $0.string($1) } },
      differs: { $0.groups != $1.groups }),
    Field(
      name: "history", write: { s, w in w.array(s.history) { w, e in e.write(to: &w) } },
      differs: { $0.history != $1.history }),
    Field(
      name: "historyRemaining",
      write: { s, w in if let n = s.historyRemaining { w.int(n) } else { w.raw("null") } },
      differs: { $0.historyRemaining != $1.historyRemaining }),
    Field(
      name: "images",
      write: { s, w in
        w.sortedObject(s.images) { w, image in
          w.object {
            $0.field("bytes", image.bytes)
            $0.field("path", image.path)
          }
        }
      }, differs: { $0.images != $1.images }),
    Field(
      name: "inFlight",
      write: { s, w in
        // By seq, sorting the numbers themselves (a busy log can hold many requests in flight).
        w.object { o in
          for seq in s.inFlight.keys.sorted() {
            let request = s.inFlight[seq]!
            o.field(dynamic: String(seq)) { w in
              w.object {
                $0.field("due", request.due?.rfc3339)
                $0.field("key", request.key)
                if !request.plan.isEmpty {
                  $0.field("plan") { $0.array(request.plan) { w, x in x.write(to: &w) } }
                }
                $0.field("since", request.since.rfc3339)
                $0.field("type", request.type.rawValue)
              }
            }
          }
        }
      }, differs: { $0.inFlight != $1.inFlight }),
    Field(
      name: "lastErrors",
      write: { s, w in w.sortedObject(s.lastErrors) { w, error in error.write(to: &w) } },
      differs: { $0.lastErrors != $1.lastErrors }),
    Field(
      name: "linkPreviews",
      write: { s, w in
        w.sortedObject(s.linkPreviews) { w, preview in
          w.object {
            $0.field("description", preview.description)
            $0.field("image", preview.image)
            $0.field("title", preview.title)
            $0.field("url", preview.url)
          }
        }
      }, differs: { $0.linkPreviews != $1.linkPreviews }),
    Field(
      name: "searches",
      write: { s, w in
        w.sortedObject(s.searches) { w, results in w.array(results) { w, r in r.write(to: &w) } }
      },
      differs: { $0.searches != $1.searches }),
    Field(
      name: "server", write: { s, w in w.string(s.server) }, differs: { $0.server != $1.server }),
    Field(
      name: "session",
      write: { s, w in
        if let session = s.session {
          w.object {
            $0.field("email", session.email)
            $0.field("expiresAt", session.expiresAt?.rfc3339)
            $0.field("since", session.since.rfc3339)
          }
        } else {
          w.raw("null")
        }
      }, differs: { $0.session != $1.session }),
    Field(
      name: "settings", write: { s, w in writeSettings(s.settings, to: &w) },
      differs: { $0.settings != $1.settings }),
    Field(
      name: "skills",
      write: { s, w in
        w.sortedObject(s.skills) { w, group in
          w.sortedObject(group) { w, skill in skill.write(to: &w) }
        }
      },
      differs: { $0.skills != $1.skills }),
    Field(
      name: "transcript",
      write: { s, w in
        w.array(s.transcript) { w, entry in
          w.object {
            if entry.speaker == .susi {
              $0.field("answers") { writeAnswers(entry.answers, to: &$0) }
            }
            $0.field("at", entry.at.rfc3339)
            $0.field("query", entry.query)
            $0.field("seq", entry.seq)
            $0.field("skill", entry.skill)
            $0.field("speaker", entry.speaker.rawValue)
          }
        }
      }, differs: { $0.transcript != $1.transcript }),
    Field(
      name: "userRatings",
      write: { s, w in
        w.sortedObject(
          Dictionary(
            uniqueKeysWithValues: s.userRatings.map { ($0.key.ratingKey, $0.value) })
        ) {
          w, rating in
          if let stars = rating.stars { w.int(stars) } else { w.raw("null") }
        }
      }, differs: { $0.userRatings != $1.userRatings }),
  ]
}

extension JSONWriter {
  /// Writes a dictionary as an object with its keys in a stable order: by UTF-8 bytes.
  mutating func sortedObject<V>(
    _ dictionary: [String: V], _ value: (inout JSONWriter, V) -> Void
  ) {
    let keys = dictionary.keys.sorted { a, b in a.utf8.lexicographicallyPrecedes(b.utf8) }
    object { o in
      for key in keys { o.field(dynamic: key) { value(&$0, dictionary[key]!) } }
    }
  }
}

extension State {
  /// What changed from `self` to `after`, field by field (only fields that differ are rendered).
  public func changes(to after: State) -> [JSONDiff.Change] {
    var out: [JSONDiff.Change] = []
    for field in State.fields where field.differs(self, after) {
      out += JSONDiff.changes(
        from: field.json(in: self), to: field.json(in: after), path: field.name)
    }
    return out
  }
}

extension SkillID {
  /// The key of this skill's rating in the state's JSON: `group/skill`, with a backslash or a
  /// slash inside the group written `\\` or `\/`, so that no two skills share a key (group
  /// `a/b` with skill `c` and group `a` with skill `b/c` would otherwise both be `a/b/c`).
  /// Names without either character are written as they are.
  var ratingKey: String {
    guard group.utf8.contains(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\\") })
    else { return group + "/" + skill }
    var escaped = ""
    for character in group.unicodeScalars {
      if character == "/" || character == "\\" { escaped.unicodeScalars.append("\\") }
      escaped.unicodeScalars.append(character)
    }
    return escaped + "/" + skill
  }
}
