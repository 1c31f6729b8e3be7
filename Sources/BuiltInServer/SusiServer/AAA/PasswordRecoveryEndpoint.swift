import SusiJSON

/// `/aaa/recoverpassword.json`: this server sends no mail, so it answers as the real server does
/// when its mail sending is disabled: 200 with `accepted: false` and the reason as `message` for
/// a known address, 422 for an unknown one. `getParameters=true&token=…` asks about a reset
/// token, and since none is ever made, every token is invalid.
enum PasswordRecoveryEndpoint {
  static func handle(_ request: EndpointRequest) throws(APIError) -> JSONReply {
    let parameters = request.parameters
    if parameters.bool("getParameters") {
      guard parameters.nonEmpty("token") != nil else { throw APIError(400, "No token specified") }
      throw APIError(422, "Invalid token")
    }
    guard let email = parameters.nonEmpty("forgotemail"),
      request.context.readState({ $0.accounts.account(email) }) != nil
    else { throw APIError(422, "email does not exist") }
    return JSONReply(["accepted": false, "message": "Mail sending disabled"])
  }
}
