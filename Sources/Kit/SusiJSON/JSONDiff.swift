/// The differences between two JSON values, as paths a person can read:
/// `skills.Knowledge.Synonyms.rating.total: 2 → 3`.
public enum JSONDiff {
  public enum Change: Equatable, Sendable, CustomStringConvertible {
    case added(path: String, value: JSON)
    case removed(path: String, value: JSON)
    case changed(path: String, from: JSON, to: JSON)

    public var description: String {
      switch self {
      case .added(let path, let value): "+ \(path): \(value.compactText)"
      case .removed(let path, let value): "- \(path): \(value.compactText)"
      case .changed(let path, let from, let to):
        "~ \(path): \(from.compactText) → \(to.compactText)"
      }
    }
  }

  /// Every change from `old` to `new` below `path`, objects by key and arrays by position
  /// (appends and truncations reported as added and removed elements).
  public static func changes(from old: JSON, to new: JSON, path: String) -> [Change] {
    guard old != new else { return [] }
    switch (old, new) {
    case (.object(let a), .object(let b)):
      var out: [Change] = []
      for member in a where b[member.key] == nil {
        out.append(.removed(path: join(path, member.key), value: member.value))
      }
      for member in b {
        if let before = a[member.key] {
          out += changes(from: before, to: member.value, path: join(path, member.key))
        } else {
          out.append(.added(path: join(path, member.key), value: member.value))
        }
      }
      return out
    case (.array(let a), .array(let b)):
      var out: [Change] = []
      for i in 0..<min(a.count, b.count) {
        out += changes(from: a[i], to: b[i], path: "\(path)[\(i)]")
      }
      if b.count > a.count {
        for i in a.count..<b.count { out.append(.added(path: "\(path)[\(i)]", value: b[i])) }
      }
      if a.count > b.count {
        for i in b.count..<a.count { out.append(.removed(path: "\(path)[\(i)]", value: a[i])) }
      }
      return out
    default:
      return [.changed(path: path, from: old, to: new)]
    }
  }

  private static func join(_ path: String, _ key: String) -> String {
    let simple =
      !key.isEmpty
      && key.unicodeScalars.allSatisfy {
        $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_"
      }
    let part = simple ? key : "[\(JSON.string(key).compactText)]"
    if path.isEmpty { return part }
    return simple ? "\(path).\(part)" : "\(path)\(part)"
  }
}
