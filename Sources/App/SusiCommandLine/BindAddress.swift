/// The address a server binds for `--host`.
public enum BindAddress {
  /// `localhost` as the loopback address: the servers bind numeric addresses only, and
  /// `localhost` is what people type.
  public static func numeric(_ host: String) -> String {
    host.lowercased() == "localhost" ? "127.0.0.1" : host
  }
}
