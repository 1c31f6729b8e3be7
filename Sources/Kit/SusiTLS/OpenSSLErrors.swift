import COpenSSL

/// The thread's OpenSSL error queue, read and emptied.
enum OpenSSLErrors {
  /// The oldest queued error as text (`certificate verify failed`), and the queue emptied.
  static func take() -> String {
    let code = ERR_get_error()
    ERR_clear_error()
    guard code != 0 else { return "" }
    if let reason = ERR_reason_error_string(code) { return String(cString: reason) }
    return "OpenSSL error \(code)"
  }

  static func clear() { ERR_clear_error() }
}
