/// Media types of files by their extension, for servers that send files.
public enum MediaType {
  /// The type of a file named `name`, by its extension ignoring case; anything else is
  /// `application/octet-stream`, bytes a browser will not run.
  public static func forFile(_ name: String) -> String {
    let file = name.split(separator: "/").last ?? ""
    guard let dot = file.lastIndex(of: "."), dot > file.startIndex else { return octetStream }
    return byExtension[file[file.index(after: dot)...].lowercased()] ?? octetStream
  }

  static let octetStream = "application/octet-stream"

  static let byExtension = [
    "html": "text/html", "htm": "text/html", "css": "text/css", "js": "text/javascript",
    "mjs": "text/javascript", "txt": "text/plain", "json": "application/json",
    "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
    "webp": "image/webp", "svg": "image/svg+xml", "ico": "image/x-icon", "bmp": "image/bmp",
  ]
}
