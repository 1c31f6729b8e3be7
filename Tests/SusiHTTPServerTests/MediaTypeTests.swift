import SusiHTTPTypes
import Testing

@Suite struct MediaTypeTests {
  @Test func followsTheLastExtensionIgnoringCase() {
    #expect(MediaType.forFile("pages/Index.HTML") == "text/html")
    #expect(MediaType.forFile("app.mjs") == "text/javascript")
    #expect(MediaType.forFile("icons/star.svg") == "image/svg+xml")
    #expect(MediaType.forFile("photo.backup.JPG") == "image/jpeg")
  }

  @Test func sendsUnknownFilesAsBytesABrowserWillNotRun() {
    for name in ["notes", "archive.tar.gz", ".png", "script.exe"] {
      #expect(MediaType.forFile(name) == "application/octet-stream", "\(name)")
    }
  }
}
