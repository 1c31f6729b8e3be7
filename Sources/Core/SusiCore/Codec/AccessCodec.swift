public import SusiJSON

// How the access part of the state is written.

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
