import Foundation
import SusiHTTPTypes

/// Resolves references found in pages and replies (`/i/abc.png`, `../img.png`,
/// `//cdn.example/x.png`) against the URL they came from.
public enum URLResolver {
  /// The absolute `http(s)` URL `reference` points to from `base`, or nil.
  public static func resolve(_ reference: String, against base: String) -> String? {
    let reference = reference.trimmingSpaces()
    guard !reference.isEmpty else { return nil }
    guard let baseURL = URL(string: base),
      let resolved = URL(string: reference, relativeTo: baseURL)?.absoluteURL,
      let scheme = resolved.scheme?.lowercased(), scheme == "http" || scheme == "https",
      resolved.host?.isEmpty == false
    else { return nil }
    return resolved.absoluteString
  }

  /// The URL with a query appended (`?` or `&` as the URL needs).
  public static func appendingQuery(_ query: String, to url: String) -> String {
    guard !query.isEmpty else { return url }
    if url.hasSuffix("?") || url.hasSuffix("&") { return url + query }
    return url + (url.contains("?") ? "&" : "?") + query
  }
}
