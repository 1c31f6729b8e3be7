import Foundation
import SusiHTTPServer
import SusiHTTPTypes
import SusiJSON
import Testing

@testable import SusiServer

@Suite struct ReplyShapingTests {
  @Test func repliesArePrettyJavaScriptWithCORS() throws {
    let server = try TestServer()
    let response = server.send("/cms/getGroups.json")
    #expect(response.status == 200)
    #expect(response.headers["Content-Type"] == "application/javascript; charset=utf-8")
    #expect(response.headers["Access-Control-Allow-Origin"] == "*")
    #expect(
      response.text.hasPrefix("{\n  \"accepted\": true,\n  \"groups\": [\n    \"Art and Beauty\","))
  }

  @Test func minifiedAndJSONP() throws {
    let server = try TestServer()
    let minified = server.send("/cms/getGroups.json", [("minified", "true")])
    #expect(minified.text.hasPrefix("{\"accepted\":true,\"groups\":[\"Art and Beauty\","))
    let padded = server.send("/cms/getGroups.json", [("minified", "1"), ("callback", "cb")])
    #expect(padded.text.hasPrefix("cb({\"accepted\":true,"))
    #expect(padded.text.hasSuffix("});"))
  }

  @Test func everyObjectReplyCarriesTheAnonymousSession() throws {
    let server = try TestServer()
    let response = server.send(
      "/cms/getGroups.json",
      headers: [("User-Agent", "curl/8"), ("Accept-Encoding", "gzip"), ("Accept-Language", "en")])
    let reply = try #require(try JSONParser.parse(response.body).object)
    // Integer.toHexString("curl/8gzipen".hashCode()) on a JVM.
    let expectedHash = "b72bd4d8"
    #expect(
      reply["session"]
        == [
          "identity": [
            "type": "host", "name": .string("203.0.113.7_\(expectedHash)"), "anonymous": true,
          ]
        ])
  }

  @Test func javaHashCodeMatchesJava() {
    #expect(IdentityResolver.javaHashCode("") == 0)
    #expect(IdentityResolver.javaHashCode("hello") == 99_162_322)
    #expect(IdentityResolver.javaHashCode("Hello World") == -862_545_276)
    // Values printed by a JVM.
    #expect(
      IdentityResolver.javaHashCode("Mozilla/5.0 (X11; Linux x86_64)gzip, deflateen-US")
        == 363_577_854)
    #expect(IdentityResolver.javaHashCode("héllo→") == -1_099_021_948)
  }

  @Test func realIPHeaderNamesTheAnonymousHostOnlyFromATrustedProxy() throws {
    let server = try TestServer { $0.trustedProxies = ["10.0.0.2"] }
    let proxied = try server.json(
      "/cms/getGroups.json", headers: [("X-Real-IP", "198.51.100.9")], remoteAddress: "10.0.0.2")
    #expect(proxied["session"]?["identity"]?["name"]?.string?.hasPrefix("198.51.100.9_") == true)
    let forwarded = try server.json(
      "/cms/getGroups.json", headers: [("X-Forwarded-For", "192.0.2.1, 198.51.100.4")],
      remoteAddress: "10.0.0.2")
    #expect(forwarded["session"]?["identity"]?["name"]?.string?.hasPrefix("198.51.100.4_") == true)
    let spoofed = try server.json(
      "/cms/getGroups.json", headers: [("X-Real-IP", "198.51.100.9")])
    #expect(spoofed["session"]?["identity"]?["name"]?.string?.hasPrefix("203.0.113.7_") == true)
  }

  @Test func getAndPostFormBodiesAreTreatedAlike() throws {
    let server = try TestServer()
    let viaGet = try server.json("/cms/getSkillList.json", [("group", "Weather")])
    let viaPost = try server.json(
      "/cms/getSkillList.json", method: "POST", form: [("group", "Weather")])
    #expect(viaGet["skills"] == viaPost["skills"])
    #expect(viaPost["group"] == "Weather")
    // A JSON body is not read as parameters.
    let jsonBody = server.handler.respond(
      HTTPRequest(
        method: "POST", target: "/cms/getSkillList.json",
        headers: ["Content-Type": "application/json"], body: Array("{\"group\":\"Weather\"}".utf8)))
    #expect(try JSONParser.parse(jsonBody.body)["group"] == "All")
  }

  @Test func queryStringWinsOverFormBody() throws {
    let server = try TestServer()
    let reply = try server.json(
      "/cms/getSkillList.json", [("group", "Sports")], method: "POST", form: [("group", "Weather")])
    #expect(reply["group"] == "Sports")
  }

  @Test func errorsAreJettyPages() throws {
    let server = try TestServer()
    let token = try server.login()
    let response = server.send(
      "/cms/fiveStarRateSkill.json",
      [("group", "Knowledge"), ("skill", "Synonyms"), ("access_token", token)])
    #expect(response.status == 422)
    #expect(response.headers["Content-Type"] == "text/html;charset=iso-8859-1")
    #expect(response.title == "Error 422 Rating not provided.")
    #expect(response.text.contains("<h2>HTTP ERROR 422</h2>"))
    #expect(response.text.contains("Reason:\n<pre>    Rating not provided.</pre>"))
    #expect(response.text.contains("Problem accessing /cms/fiveStarRateSkill.json."))
  }

  @Test func errorPagesAreEmptyForCallersThatDoNotAcceptHTML() throws {
    let server = try TestServer()
    let json = server.send("/aaa/listUserSettings.json", headers: [("Accept", "application/json")])
    #expect(json.status == 401)
    #expect(json.body.isEmpty)
    let any = server.send("/aaa/listUserSettings.json", headers: [("Accept", "*/*")])
    #expect(any.status == 401)
    #expect(any.title?.hasPrefix("Error 401 Base user role not sufficient.") == true)
  }

  @Test func outOfRangeNumbersAreBadRequests() throws {
    let server = try TestServer()
    for (name, value) in [
      ("timezoneOffset", "1e20"), ("timezoneOffset", "99999999999"), ("timezoneOffset", "-1.5"),
      ("latitude", "1e400"),
    ] {
      let response = server.send("/susi/chat.json", [("q", "hi"), (name, value)])
      #expect(response.status == 400, "\(name)=\(value)")
      #expect(
        response.title
          == "Error 400 Parameter \(name) is out of range or not a whole number: \(value)")
    }
    #expect(server.send("/susi/memory.json", [("cognitions", "1e3")]).status == 400)
  }

  @Test func badNumbersAreServerErrors() throws {
    let server = try TestServer()
    let response = server.send("/susi/chat.json", [("q", "hi"), ("timezoneOffset", "soon")])
    #expect(response.status == 500)
    #expect(response.title == "Error 500 Server Error")
    #expect(response.text.contains("NumberFormatException: For input string: &quot;soon&quot;"))
    #expect(server.send("/susi/chat.json", [("q", "hi"), ("latitude", "north")]).status == 500)
    #expect(server.send("/susi/memory.json", [("cognitions", "ten")]).status == 500)
  }

  @Test func unknownPathsAndMethods() throws {
    let server = try TestServer()
    #expect(server.send("/nothing/here.json").status == 404)
    #expect(server.send("/cms/getGroups.json", method: "DELETE").status == 405)
    let preflight = server.send("/susi/chat.json", method: "OPTIONS")
    #expect(preflight.status == 200)
    #expect(preflight.headers["Access-Control-Allow-Origin"] == "*")
  }

  @Test func escapesMarkupInErrorPages() {
    #expect(
      ReplyWriter.escape("<a href=\"x\">é</a>") == "&lt;a href=&quot;x&quot;&gt;&#233;&lt;/a&gt;")
  }
}
