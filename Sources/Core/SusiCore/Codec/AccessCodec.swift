public import SusiJSON

// How access intents and the access part of the state are written and read back.

extension Action.CreateAccessGroup {
  func write(to o: inout JSONWriter.ObjectFields) {
    o.field("by", by)
    o.field("group", group)
  }

  init(reading r: FieldReader) throws(JSONShapeError) {
    self.init(by: try r.string("by"), group: try r.string("group"))
  }
}

extension Action.PrivilegeChange {
  func write(to o: inout JSONWriter.ObjectFields) {
    o.field("by", by)
    o.field("group", group)
    o.field("privilege", privilege.rawValue)
  }

  init(reading r: FieldReader) throws(JSONShapeError) {
    self.init(
      by: try r.string("by"), group: try r.string("group"),
      privilege: Privilege(rawValue: try r.string("privilege")))
  }
}

extension Action.IssueKey {
  func write(to o: inout JSONWriter.ObjectFields) {
    o.field("by", by)
    o.field("key", key)
    o.field("groups", groups)
    o.field("label", label)
  }

  init(reading r: FieldReader) throws(JSONShapeError) {
    self.init(
      by: try r.string("by"), key: try r.string("key"), groups: try r.strings("groups"),
      label: try r.optionalString("label"))
  }
}

extension Action.RevokeKey {
  func write(to o: inout JSONWriter.ObjectFields) {
    o.field("by", by)
    o.field("key", key)
  }

  init(reading r: FieldReader) throws(JSONShapeError) {
    self.init(by: try r.string("by"), key: try r.string("key"))
  }
}

extension AccessControl {
  /// Writes the groups and keys with every object's keys sorted (part of the canonical state).
  public func write(to w: inout JSONWriter) {
    w.object { o in
      o.field("groups") { w in
        w.sortedObject(groups) { w, group in
          w.object {
            $0.field(
              "privileges", group.privileges.sortedNames)
          }
        }
      }
      o.field("keys") { w in
        w.sortedObject(keys) { w, key in
          w.object {
            $0.field("groups", key.groups)
            $0.field("issuedAt", key.issuedAt.rfc3339)
            $0.field("issuedBy", key.issuedBy)
            $0.field("label", key.label)
            $0.field("revokedAt", key.revokedAt?.rfc3339)
            $0.field("revokedBy", key.revokedBy)
          }
        }
      }
    }
  }

  /// The groups and keys as a JSON value (keys sorted).
  public var json: JSON {
    var w = JSONWriter()
    write(to: &w)
    return (try? JSONParser.parse(w.bytes)) ?? .null
  }
}
