import SusiHTTPServer
import SusiHTTPTypes
import SusiJSON

/// Turns endpoint results into HTTP responses the way the real server shapes them.
enum ReplyWriter {
  /// The content type of every JSON reply: the real server says JavaScript, not JSON.
  static let jsonContentType = "application/javascript; charset=utf-8"

  /// A successful JSON reply: pretty-printed (indent 2, org.json style) unless
  /// `minified=true`, wrapped as `NAME(...);` when `callback=NAME` is given.
  static func json(_ object: JSONObject, parameters: RequestParameters) -> HTTPResponse {
    let value = JSON.object(object)
    var body = parameters.bool("minified") ? value.compactText : value.prettyText(indent: 2)
    if let callback = parameters.nonEmpty("callback") {
      body = "\(callback)(\(body));"
    }
    var headers = HTTPHeaders()
    headers.add("Content-Type", jsonContentType)
    headers.add("Access-Control-Allow-Origin", "*")
    return HTTPResponse(status: 200, headers: headers, body: Array(body.utf8))
  }

  /// Raw bytes with a content type (images, pages, web search).
  static func bytes(_ body: [UInt8], contentType: String, status: Int = 200) -> HTTPResponse {
    var headers = HTTPHeaders()
    headers.add("Content-Type", contentType)
    headers.add("Access-Control-Allow-Origin", "*")
    return HTTPResponse(status: status, headers: headers, body: body)
  }

  /// The page Jetty 9.3's `ErrorHandler` renders for `sendError(status, message)`.
  ///
  /// Like Jetty, the body is left empty when the caller's `Accept` header names neither
  /// `text/html` nor `*/*`; the status code is what a client should rely on.
  static func errorPage(_ error: APIError, path: String, accept: String?) -> HTTPResponse {
    var headers = HTTPHeaders()
    headers.add("Content-Type", "text/html;charset=iso-8859-1")
    headers.add("Access-Control-Allow-Origin", "*")
    headers.add("Cache-Control", "must-revalidate,no-cache,no-store")
    if let accept = accept?.lowercased(), !accept.contains("text/html"), !accept.contains("*/*") {
      return HTTPResponse(status: error.status, headers: headers, body: [])
    }
    let message = escape(error.message)
    var page = "<html>\n<head>\n"
    page += "<meta http-equiv=\"Content-Type\" content=\"text/html;charset=ISO-8859-1\"/>\n"
    page += "<title>Error \(error.status) \(message)</title>\n"
    page += "</head>\n<body><h2>HTTP ERROR \(error.status)</h2>\n"
    page += "<p>Problem accessing \(escape(path)). Reason:\n<pre>    \(message)</pre></p>"
    if let cause = error.cause {
      page += "<h3>Caused by:</h3><pre>\(escape(cause))\n</pre>"
    }
    page += "<hr><i><small>Powered by Jetty://</small></i><hr/>\n\n</body>\n</html>\n"
    return HTTPResponse(status: error.status, headers: headers, body: Array(page.utf8))
  }

  /// Escapes markup and writes anything outside printable ASCII as a numeric character
  /// reference, so the page is valid in its declared ISO-8859-1.
  static func escape(_ text: String) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "\n", "\t": out.unicodeScalars.append(scalar)
      default:
        if scalar.value < 0x20 || scalar.value > 0x7E {
          out += "&#\(scalar.value);"
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    return out
  }
}
