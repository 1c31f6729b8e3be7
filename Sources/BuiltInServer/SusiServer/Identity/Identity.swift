import SusiCrypto
import SusiJSON

/// Who a request comes from, as the real server reports it in `session.identity`.
public struct Identity: Sendable, Equatable, Hashable {
  /// The real server's identity types that this server produces.
  public enum Kind: String, Sendable {
    /// An anonymous caller, named `<ip>_<hash of some request headers>`.
    case host
    /// A caller with a valid access token, named by the account's email address.
    case email
  }

  public var kind: Kind
  public var name: String

  /// An identity of `kind` named `name`.
  public init(kind: Kind, name: String) {
    self.kind = kind
    self.name = name
  }

  public var isAnonymous: Bool { kind != .email }

  /// `{"type": …, "name": …, "anonymous": …}`
  var json: JSON {
    .object([
      "type": .string(kind.rawValue), "name": .string(name), "anonymous": .bool(isAnonymous),
    ])
  }

  /// `{"identity": {…}}`, the `session` member of every object reply.
  var session: JSON { .object(["identity": json]) }

  /// The chat reply's `client_id`: base64 of `<type>_<name>`.
  var clientID: String { ByteEncoding.base64(Array("\(kind.rawValue)_\(name)".utf8)) }
}
