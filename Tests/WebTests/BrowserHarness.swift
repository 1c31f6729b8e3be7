import Foundation
import SusiJSON
import Synchronization
import Testing

/// One headless Chromium for every browser test (starting one is the slow part); each test
/// gets a browser context of its own, so cookies and caches never carry over.
actor SharedChromium {
  static let shared = SharedChromium()
  private var started: Result<ChromiumConnection, ChromiumError>?

  /// The browser, ended (and its folder removed) when the test process exits.
  private static let running = Mutex<ChromiumConnection?>(nil)

  /// The browser, started on first use. A missing Chromium fails every test that needs it.
  func connection() throws -> ChromiumConnection {
    if started == nil {
      do {
        let connection = try ChromiumConnection()
        Self.running.withLock { $0 = connection }
        atexit { SharedChromium.running.withLock { $0 }?.process.stop() }
        started = .success(connection)
      } catch let error as ChromiumError {
        started = .failure(error)
      } catch {
        started = .failure(ChromiumError("\(error)"))
      }
    }
    return try started!.get()
  }
}

/// A running `susi web` and a tab showing it, for one test.
struct BrowserSession {
  let susi: BrowserSusi
  let page: ChromiumPage

  /// Starts `susi web`, opens its printed address in a new tab and waits for the page to be
  /// ready; runs `body`; then checks what every browser test must hold (no script errors, no
  /// request beyond loopback, images only from susi's cache) and stops everything.
  /// With `serve`, it is `susi serve --web` instead, and the page is left at its sign-in.
  static func run(
    width: Int = 1200, height: Int = 900, serve: Bool = false,
    _ body: (BrowserSession) async throws -> Void
  ) async throws {
    let browser = try await SharedChromium.shared.connection()
    let susi = try await serve ? BrowserSusi.startServe() : BrowserSusi.start()
    defer { susi.stop() }
    let page = try await ChromiumPage.open(in: browser, width: width, height: height)
    let session = BrowserSession(susi: susi, page: page)
    do {
      try await page.navigate(susi.url)
      if !serve {
        try await page.waitUntil("document.body.dataset.ready === 'true'", "the page to start")
      }
      try await body(session)
    } catch {
      await page.close()
      throw error
    }
    session.checkRequests()
    #expect(page.scriptErrors() == [], "the page threw")
    let violations = page.browserErrors().filter { $0.contains("Content Security Policy") }
    #expect(violations == [], "the page broke its Content-Security-Policy")
    await page.close()
  }

  /// Every request went to susi on loopback; every image came from `/images` (as a blob).
  func checkRequests() {
    let requests = page.requests()
    #expect(!requests.isEmpty)
    for request in requests {
      let url = URL(string: request.url)
      // Pictures are shown from blob: addresses the page made of what /images gave it.
      if request.type == "Image" {
        #expect(
          url?.scheme == "blob" || url?.scheme == "data",
          "an image did not come from the cache: \(request.url)")
        continue
      }
      #expect(
        url?.scheme == "http" && url?.host == "127.0.0.1", "a request left loopback: \(request.url)"
      )
    }
  }

  /// Saves a screenshot under `.build/web-screenshots/` (a test artifact); with
  /// `SUSI_RECORD_SCREENSHOTS=1` also into `Frontends/Web/Screenshots/` for the README.
  func screenshot(_ name: String) async throws {
    // No focus ring, caret or passing status message in the pictures.
    try await page.evaluate(
      "{ document.activeElement?.blur(); const n = document.querySelector('#notice'); n.style.transition = 'none'; n.classList.remove('visible'); }"
    )
    let root = FileManager.default.currentDirectoryPath
    try await page.screenshot(to: "\(root)/.build/web-screenshots/\(name).png")
    if ProcessInfo.processInfo.environment["SUSI_RECORD_SCREENSHOTS"] == "1" {
      try await page.screenshot(to: "\(root)/Frontends/Web/Screenshots/\(name).png")
    }
  }

  /// Shows `screen` (`chat`, `skills`, `account`, `inspector`, or a longer `#/…` route).
  func go(_ route: String) async throws {
    try await page.evaluate("location.hash = \(ChromiumPage.quoted("#/\(route)"))")
  }

  /// A JavaScript expression for the chat exchange that asked `query` (undefined until shown).
  static func exchange(_ query: String) -> String {
    "[...document.querySelectorAll('#chat-log .exchange')].find((e) => e.dataset.query === \(ChromiumPage.quoted(query)))"
  }

  /// Types `query` into the chat, sends it, and waits until an answer to it is shown.
  func ask(_ query: String) async throws {
    try await go("chat")
    try await page.fill("#chat-input", query)
    try await page.submit("#chat-form")
    try await page.waitUntil(
      "\(Self.exchange(query))?.querySelector('.answer')", "an answer to '\(query)'")
  }

  /// Waits until `expression`, evaluated against the exchange of `query` as `e`, is true.
  func waitInExchange(_ query: String, _ expression: String, _ what: String) async throws {
    try await page.waitUntil(
      "((e) => e && (\(expression)))(\(Self.exchange(query)))", "\(what) (for '\(query)')")
  }

  /// Signs up and logs in through the Account screen.
  func signUpAndLogIn(email: String, password: String) async throws {
    try await go("account")
    try await page.waitUntil("document.querySelector('#signup-form')", "the sign-up form")
    try await page.fill("#signup-form-email", email)
    try await page.fill("#signup-form-password", password)
    try await page.submit("#signup-form")
    try await page.waitUntil(
      "document.querySelector('#notice').textContent.includes('Signed up')", "the sign-up")
    try await page.fill("#login-form-email", email)
    try await page.fill("#login-form-password", password)
    try await page.submit("#login-form")
    try await page.waitUntil(
      "document.querySelector('#session-email')?.textContent === \(ChromiumPage.quoted(email))",
      "the login")
  }

  /// The state as `/state` gives it now, read by the page (with its session).
  func state() async throws -> JSON {
    try await page.evaluate(
      "import(new URL('api.js', document.baseURI).href).then((m) => m.getState())")
  }
}
