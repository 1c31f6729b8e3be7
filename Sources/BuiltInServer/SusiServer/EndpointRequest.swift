import Foundation
import SusiHTTPServer
import SusiHTTPTypes
import SusiJSON

/// One request as an endpoint sees it: parameters merged, caller identified, time read once.
struct EndpointRequest: Sendable {
  let http: HTTPRequest
  let parameters: RequestParameters
  let identity: Identity
  let context: ServerContext
  let now: Date

  /// The caller's address, from a trusted proxy's header or else the peer (see
  /// `IdentityResolver.clientHost`).
  var clientHost: String {
    IdentityResolver.clientHost(http, trustedProxies: context.configuration.trustedProxies)
  }

  /// Who calls: the address and, on loopback, the local user (see `IdentityResolver.caller`).
  var caller: String {
    IdentityResolver.caller(http, trustedProxies: context.configuration.trustedProxies)
  }

  /// `http://<Host>` as the caller addressed this server, for links back to it.
  var baseURL: String {
    let host = http.headers["Host"]?.trimmed ?? ""
    let safe = host.allSatisfy { $0.isASCII && !$0.isWhitespace && $0 != "/" && $0 != "\"" }
    return "http://" + (host.isEmpty || !safe ? "127.0.0.1" : host)
  }

  /// The caller's account; USER endpoints call this after the role check.
  func account(in state: ServerState) throws(APIError) -> Account {
    guard identity.kind == .email, let account = state.accounts.account(identity.name) else {
      throw APIError.notLoggedIn
    }
    return account
  }

  /// The caller's account as stored now, for endpoints that only show it (as the real server,
  /// they say "user data not found" to a caller without one).
  func storedAccount() throws(APIError) -> Account {
    try context.withState { (state: inout ServerState) throws(APIError) in
      guard identity.kind == .email, let account = state.accounts.account(identity.name) else {
        throw APIError(401, "Specified user data not found, ensure you are logged in")
      }
      return account
    }
  }

  /// Changes the caller's account with `change` and saves the accounts, all under the state
  /// lock; when the change or the save fails, nothing changes.
  func changeAccount(_ change: (inout Account) throws(APIError) -> Void) throws(APIError) {
    let context = self.context
    try context.withState { (state: inout ServerState) throws(APIError) in
      var account = try account(in: state)
      try change(&account)
      var accounts = state.accounts
      accounts.put(account)
      if let store = context.store {
        do throws(FileError) { try store.saveAccounts(accounts) } catch {
          throw ServerContext.saveFailed(error)
        }
      }
      state.accounts = accounts
    }
  }
}

/// A JSON endpoint's answer: the object (without `session`, which the router adds) and any
/// extra response headers.
struct JSONReply: Sendable {
  var object: JSONObject
  var headers: [(String, String)] = []

  init(_ object: JSONObject, headers: [(String, String)] = []) {
    self.object = object
    self.headers = headers
  }
}
