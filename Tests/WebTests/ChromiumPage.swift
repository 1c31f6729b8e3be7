import Foundation
import SusiJSON

/// One tab in a browser context of its own (its own cookies and cache), driven through a
/// flattened DevTools session: navigate, run script, wait for the page, take screenshots, and
/// read back every request it made.
struct ChromiumPage: Sendable {
  let browser: ChromiumConnection
  let context: String
  let target: String
  let session: String

  /// Opens a tab of `width` x `height` CSS pixels in a fresh browser context.
  static func open(in browser: ChromiumConnection, width: Int = 1200, height: Int = 900)
    async throws -> ChromiumPage
  {
    let context = try await browser.call("Target.createBrowserContext")["browserContextId"]?
      .string
    guard let context else { throw ChromiumError("no browser context was made") }
    let target = try await browser.call(
      "Target.createTarget", ["url": "about:blank", "browserContextId": .string(context)])[
        "targetId"]?.string
    guard let target else { throw ChromiumError("no tab was made") }
    let session = try await browser.call(
      "Target.attachToTarget", ["targetId": .string(target), "flatten": true])["sessionId"]?
      .string
    guard let session else { throw ChromiumError("could not attach to the tab") }
    let page = ChromiumPage(browser: browser, context: context, target: target, session: session)
    for domain in ["Page.enable", "Network.enable", "Runtime.enable", "Log.enable"] {
      _ = try await page.call(domain)
    }
    try await page.resize(width: width, height: height)
    return page
  }

  /// Sends a command to this tab.
  @discardableResult
  func call(_ method: String, _ params: JSONObject = [:], timeout: Duration = .seconds(40))
    async throws -> JSON
  {
    try await browser.call(method, params, session: session, timeout: timeout)
  }

  func resize(width: Int, height: Int) async throws {
    try await call(
      "Emulation.setDeviceMetricsOverride",
      [
        "width": .int(width), "height": .int(height), "deviceScaleFactor": 1,
        "mobile": .bool(width < 700),
      ])
  }

  /// Loads `url`.
  func navigate(_ url: String) async throws {
    let result = try await call("Page.navigate", ["url": .string(url)])
    if let error = result["errorText"]?.string {
      throw ChromiumError("could not load \(url): \(error)")
    }
  }

  /// Runs `expression` in the page (awaiting it when it is a promise) and returns its value.
  @discardableResult
  func evaluate(_ expression: String, timeout: Duration = .seconds(40)) async throws -> JSON {
    let result = try await call(
      "Runtime.evaluate",
      ["expression": .string(expression), "returnByValue": true, "awaitPromise": true],
      timeout: timeout)
    if let details = result["exceptionDetails"] {
      let text =
        details["exception"]?["description"]?.string ?? details["text"]?.string
        ?? details.compactText
      throw ChromiumError("the page threw: \(text)\nin: \(expression)")
    }
    return result["result"]?["value"] ?? .null
  }

  /// Waits until the JavaScript expression `condition` is true in the page, checking it every
  /// few milliseconds in the page itself; fails after `seconds` with `what` and what the page
  /// shows. A check cut short by the page loading anew is simply made again.
  func waitUntil(_ condition: String, _ what: String, seconds: Int = 30) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + .seconds(seconds)
    while clock.now < deadline {
      let left = Int((deadline - clock.now) / .milliseconds(1))
      let script = """
        (async () => {
          const end = Date.now() + \(left);
          for (;;) {
            let ok = false;
            try { ok = Boolean(await (async () => (\(condition)))()); } catch (e) { ok = false; }
            if (ok) return true;
            if (Date.now() > end) return false;
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        })()
        """
      do {
        if try await evaluate(script, timeout: .milliseconds(left) + .seconds(10)) == .bool(true) {
          return
        }
      } catch let error as ChromiumError where Self.isNavigation(error) {
        continue
      }
    }
    let shown = (try? await evaluate("document.body.innerText.slice(0, 3000)"))?.string ?? ""
    throw ChromiumError("gave up waiting for \(what) after \(seconds) s; the page shows:\n\(shown)")
  }

  /// Whether a script failed only because the page went away under it (a reload).
  private static func isNavigation(_ error: ChromiumError) -> Bool {
    ["navigated or closed", "context was destroyed", "Cannot find context"].contains {
      error.description.contains($0)
    }
  }

  /// Clicks the element `selector` names (through the DOM, as a keyboard or mouse would).
  func click(_ selector: String) async throws {
    try await evaluate(
      """
      (() => { const e = document.querySelector(\(Self.quoted(selector)));
        if (!e) throw new Error("nothing matches " + \(Self.quoted(selector)));
        e.click(); })()
      """)
  }

  /// Types `text` into the field `selector` names (replacing what it holds).
  func fill(_ selector: String, _ text: String) async throws {
    try await evaluate(
      """
      (() => { const e = document.querySelector(\(Self.quoted(selector)));
        if (!e) throw new Error("nothing matches " + \(Self.quoted(selector)));
        e.focus(); e.value = \(Self.quoted(text));
        e.dispatchEvent(new Event("input", { bubbles: true })); })()
      """)
  }

  /// Submits the form `selector` names, as pressing its submit button does.
  func submit(_ selector: String) async throws {
    try await evaluate(
      """
      (() => { const f = document.querySelector(\(Self.quoted(selector)));
        if (!f) throw new Error("nothing matches " + \(Self.quoted(selector)));
        f.requestSubmit(); })()
      """)
  }

  /// The number of elements `selector` matches.
  func count(_ selector: String) async throws -> Int {
    try await evaluate("document.querySelectorAll(\(Self.quoted(selector))).length").int ?? 0
  }

  /// The text of the first element `selector` matches ("" when none does).
  func text(_ selector: String) async throws -> String {
    try await evaluate(
      "(document.querySelector(\(Self.quoted(selector)))?.textContent ?? '').trim()"
    ).string ?? ""
  }

  /// Saves a PNG of what the tab shows to `path`.
  func screenshot(to path: String) async throws {
    let result = try await call("Page.captureScreenshot", ["format": "png"])
    guard let base64 = result["data"]?.string, let data = Data(base64Encoded: base64) else {
      throw ChromiumError("the screenshot came back empty")
    }
    let url = URL(fileURLWithPath: path)
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try data.write(to: url)
  }

  /// Every request the tab made so far: its URL and resource type (`Document`, `Image`, …).
  func requests() -> [(url: String, type: String)] {
    browser.events("Network.requestWillBeSent", session: session).map {
      ($0["request"]?["url"]?.string ?? "", $0["type"]?.string ?? "")
    }
  }

  /// Uncaught script errors in the tab so far.
  func scriptErrors() -> [String] {
    browser.events("Runtime.exceptionThrown", session: session).map {
      $0["exceptionDetails"]?["exception"]?["description"]?.string
        ?? $0["exceptionDetails"]?["text"]?.string ?? "an error"
    }
  }

  /// What the browser itself complained about in the tab (a blocked script or style, a
  /// Content-Security-Policy violation), as its log's error lines.
  func browserErrors() -> [String] {
    browser.events("Log.entryAdded", session: session).compactMap { params in
      guard params["entry"]?["level"]?.string == "error" else { return nil }
      return params["entry"]?["text"]?.string
    }
  }

  /// Closes the tab and its browser context.
  func close() async {
    _ = try? await browser.call("Target.closeTarget", ["targetId": .string(target)])
    _ = try? await browser.call(
      "Target.disposeBrowserContext", ["browserContextId": .string(context)])
  }

  /// `text` as a JavaScript string literal.
  static func quoted(_ text: String) -> String {
    JSON.string(text).compactText
  }
}
