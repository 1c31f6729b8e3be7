import SusiRunner
import Testing

@Suite struct ImageKindTests {
  @Test func firstBytesGiveTheKindItsExtensionAndMediaType() {
    let samples: [([UInt8], ImageKind, String, String)] = [
      ([0x89, 0x50, 0x4E, 0x47, 0x0D], .png, ".png", "image/png"),
      ([0xFF, 0xD8, 0xFF, 0xE0], .jpeg, ".jpg", "image/jpeg"),
      (Array("GIF89a".utf8), .gif, ".gif", "image/gif"),
      (Array("RIFF\0\0\0\0WEBPVP8".utf8), .webp, ".webp", "image/webp"),
      (Array("BM\0\0".utf8), .bmp, ".bmp", "image/bmp"),
      ([0, 0, 1, 0, 1], .ico, ".ico", "image/x-icon"),
      (Array("<?xml?><SVG xmlns='x'>".utf8), .svg, ".svg", "image/svg+xml"),
    ]
    for (bytes, kind, fileExtension, mediaType) in samples {
      #expect(ImageSniffer.kind(bytes) == kind)
      #expect(kind.fileExtension == fileExtension)
      #expect(kind.mediaType == mediaType)
    }
    #expect(ImageSniffer.kind(Array("<html>".utf8)) == nil)
  }
}
