import SusiHTTPTypes

extension HTTPRequest {
  /// The value of the query parameter `name`, percent-decoded (the last one when it is given
  /// more than once); nil when the target has none.
  public func queryValue(_ name: String) -> String? {
    guard let query else { return nil }
    return URLEncodedForm.decode(query).last { $0.0 == name }?.1
  }
}
