import SusiJSON

/// The JSONPath subset of a console rule's `path`, read as the real server reads it: `$` (the
/// whole reply, which must be an array, or else the reply's text as one row `{"!": text}`),
/// `$[n]`, and `$.a.b`, `$.a[n]`, `$.a[n][m]`, `$.[n]` steps.
///
/// The value found becomes rows: an array of objects as it is; an object as one row, with
/// `k0`, `v0`, `k1`, `v1` … naming its members and `mapsize` counting them; a string, number or
/// boolean as `{"!": value}`; an array of such values as one `{"!": value}` row each. Empty
/// objects are dropped. nil when the path does not fit the reply.
enum ConsolePath {
  static func rows(_ body: [UInt8], path: String) -> [JSONObject]? {
    let document = try? JSONParser.parse(body)
    if path == "$" {
      guard case .array(let items)? = document else {
        return [["!": .string(String(decoding: body, as: UTF8.self))]]
      }
      return rows(from: items)
    }
    guard let document, let found = find(path, in: document) else { return nil }
    switch found {
    case .array(let items):
      return rows(from: items)
    case .object(let object):
      var row = object
      for (index, member) in object.members.enumerated() {
        row["k\(index)"] = .string(member.key)
        row["v\(index)"] = member.value
      }
      row["mapsize"] = .int(object.count)
      return [row]
    case .string, .int, .double, .number, .bool:
      return [["!": .string(SkillBindings.text(found))]]
    case .null:
      return nil
    }
  }

  /// The value `path` points at in `document`.
  private static func find(_ path: String, in document: JSON) -> JSON? {
    let steps = path.split(separator: ".", omittingEmptySubsequences: false)
    guard steps.first == "$" || (steps.first?.hasPrefix("$[") ?? false) else { return nil }
    if steps.count == 1 {
      // `$[n]`: an element of the reply, itself an array.
      guard let indexes = indexes(steps[0].dropFirst()), indexes.count == 1,
        case .array(let items) = document, indexes[0] < items.count,
        case .array = items[indexes[0]]
      else { return nil }
      return items[indexes[0]]
    }
    guard steps[0] == "$" else { return nil }
    var current = document
    for step in steps.dropFirst() {
      let bracket = step.firstIndex(of: "[") ?? step.endIndex
      let name = step[..<bracket]
      if !name.isEmpty {
        guard let next = current.object?[String(name)] else { return nil }
        current = next
      }
      guard bracket < step.endIndex else { continue }
      guard let indexes = indexes(step[bracket...]), !indexes.isEmpty, indexes.count <= 2,
        name.isEmpty ? indexes.count == 1 : true
      else { return nil }
      for index in indexes {
        guard case .array(let items) = current, index < items.count else { return nil }
        current = items[index]
      }
    }
    return current
  }

  /// `[1][2]` → `[1, 2]`; nil for anything else.
  private static func indexes(_ text: Substring) -> [Int]? {
    var rest = text
    var out: [Int] = []
    while !rest.isEmpty {
      guard rest.first == "[", let close = rest.firstIndex(of: "]"),
        let index = Int(rest[rest.index(after: rest.startIndex)..<close]), index >= 0
      else { return nil }
      out.append(index)
      rest = rest[rest.index(after: close)...]
    }
    return out
  }

  /// An array found by the path as rows: objects as they are, plain values wrapped; mixing
  /// objects with values, or holding arrays, does not fit.
  private static func rows(from items: [JSON]) -> [JSONObject]? {
    if items.count == 1, items[0].object == nil {
      if case .array = items[0] { return nil }
      return [["!": items[0]]]
    }
    if items.allSatisfy({ $0.object != nil }) {
      return items.compactMap { $0.object }.filter { !$0.isEmpty }
    }
    var rows: [JSONObject] = []
    for item in items {
      switch item {
      case .object, .array, .null: return nil
      default: rows.append(["!": item])
      }
    }
    return rows
  }
}
