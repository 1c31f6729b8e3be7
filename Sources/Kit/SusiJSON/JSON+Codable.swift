/// JSON values travel through `Codable` as themselves, so types holding arbitrary JSON (table
/// cells, unknown answer actions) stay `Codable`.
extension JSON: Codable {
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let b = try? container.decode(Bool.self) {
      self = .bool(b)
    } else if let i = try? container.decode(Int.self) {
      self = .int(i)
    } else if let d = try? container.decode(Double.self) {
      self = .double(d)
    } else if let s = try? container.decode(String.self) {
      self = .string(s)
    } else if let a = try? container.decode([JSON].self) {
      self = .array(a)
    } else {
      let members = try container.decode([String: JSON].self)
      self = .object(JSONObject(members.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .null: try container.encodeNil()
    case .bool(let b): try container.encode(b)
    case .int(let i): try container.encode(i)
    case .double(let d): try container.encode(d)
    case .number(let text): try container.encode(Double(text) ?? 0)
    case .string(let s): try container.encode(s)
    case .array(let a): try container.encode(a)
    case .object(let o):
      try container.encode(
        Dictionary(o.members.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 }))
    }
  }
}
