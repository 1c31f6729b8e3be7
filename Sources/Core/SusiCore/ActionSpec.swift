/// What susi knows about one action type, in one place: its kind, the payload fields an intent
/// takes, the privilege a caller needs to send it, whether it needs a logged-in user, which older
/// request a new one supersedes, and a line of help. The codec, the access rules, the reducer's
/// bookkeeping and the frontends' help read it from here (`ActionType.spec`).
public struct ActionSpec: Sendable {
  /// Which older request in flight a new request of this type makes pointless.
  public enum Supersedes: Sendable, Equatable {
    /// None: every request counts (a rating, a chat message).
    case nothing
    /// Any older request of this type (there is one list of groups).
    case sameType
    /// An older request of this type about the same subject (the same skill, the same URL);
    /// the reducer names the subject.
    case sameSubject
  }

  public let type: ActionType
  public let kind: Action.Kind
  /// For an intent, the payload fields it takes, in the order the log writes them (input from
  /// other programs may carry no others); nil for a result.
  public let fields: [String]?
  /// For an intent, the privilege a caller needs to send it; nil for a result.
  public let privilege: Privilege?
  /// For an intent that only works for a logged-in user, what it does, as in "log in first to
  /// rate skills"; nil otherwise.
  public let loginPurpose: String?
  public let supersedes: Supersedes
  /// What it does, in one line, for help and completion.
  public let summary: String

  /// Whether a request of this type needs a logged-in user.
  public var needsLogin: Bool { loginPurpose != nil }

  /// The superseding key of a request of this type about `subject` (`loadSkill:Knowledge/x`):
  /// a newer request with the same key cancels the older one. Nil when this type supersedes
  /// nothing.
  public func supersedingKey(about subject: String?) -> String? {
    switch supersedes {
    case .nothing: nil
    case .sameType: type.rawValue
    case .sameSubject: subject.map { "\(type.rawValue):\($0)" } ?? type.rawValue
    }
  }

  static func intent(
    _ type: ActionType, _ fields: [String], privilege: Privilege? = nil,
    needsLoginTo loginPurpose: String? = nil, supersedes: Supersedes = .nothing,
    _ summary: String
  ) -> ActionSpec {
    ActionSpec(
      type: type, kind: .intent, fields: fields,
      privilege: privilege ?? Privilege(rawValue: type.rawValue), loginPurpose: loginPurpose,
      supersedes: supersedes, summary: summary)
  }

  static func result(_ type: ActionType, _ summary: String) -> ActionSpec {
    ActionSpec(
      type: type, kind: .result, fields: nil, privilege: nil, loginPurpose: nil,
      supersedes: .nothing, summary: summary)
  }
}

extension Action {
  /// Whether an action is asked for (intent) or reports what happened (result).
  public enum Kind: Sendable { case intent, result }

  public var kind: Kind { type.kind }
}

extension ActionType {
  /// Every intent type, in the documented order.
  public static let intents: [ActionType] = allCases.filter { $0.kind == .intent }

  /// Every result type, in the documented order.
  public static let results: [ActionType] = allCases.filter { $0.kind == .result }
}

extension ActionType {
  /// Everything known about this type; see `ActionSpec`.
  public var spec: ActionSpec { ActionSpec.inCaseOrder[ordinal] }

  /// This type's place in `allCases`. A case without a payload is stored as its place in the
  /// declaration, which is the order of `allCases`; a test checks every case. (A look-up in
  /// `table` hashes the raw value, a string, and the reducer asks for specs on every event.)
  var ordinal: Int { Int(unsafeBitCast(self, to: UInt8.self)) }

  public var kind: Action.Kind { spec.kind }

  /// The payload fields an intent of this type accepts, as a set; nil for a result.
  var acceptedFields: Set<String>? { ActionSpec.acceptedFields[self]! }
}

extension ActionSpec {
  /// The table, by type. Every `ActionType` has exactly one entry (a test checks it).
  static let table: [ActionType: ActionSpec] = Dictionary(
    uniqueKeysWithValues: every.map { ($0.type, $0) })

  /// The table in the order of `ActionType.allCases`.
  static let inCaseOrder: [ActionSpec] = ActionType.allCases.map { table[$0]! }

  static let acceptedFields: [ActionType: Set<String>?] = table.mapValues {
    $0.fields.map(Set.init)
  }

  /// Every entry, in the documented order: the intents, then the results. The rows are kept
  /// beside their payload types, by domain, in `Action.swift`.
  public static let every: [ActionSpec] = {
    let rows = session + skills + settings + chat + web + requests + access
    let byType = Dictionary(rows.map { ($0.type, $0) }, uniquingKeysWith: { first, _ in first })
    return ActionType.allCases.compactMap { byType[$0] }
  }()
}
