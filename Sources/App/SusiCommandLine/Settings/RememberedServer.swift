import SusiCore
public import SusiFiles

/// The server chosen with `susi server use URL` or `/server URL` in the chat, kept in
/// `STATE-DIR/remembered-server` as `key = value` lines, so later runs use it. A CA file to trust
/// for that server (`ca-file`) sits beside it. `--server` and `SUSI_SERVER` never change it:
/// they apply to the run they are given for.
public struct RememberedServer: Sendable, Equatable {
  /// `embedded` or a server URL; nil when nothing was chosen.
  public var server: String?
  /// A PEM file of CA certificates to trust for `server`.
  public var caFile: String?

  public init(server: String? = nil, caFile: String? = nil) {
    self.server = server
    self.caFile = caFile
  }

  public static func path(in stateDirectory: String) -> String {
    stateDirectory + "/remembered-server"
  }

  /// The remembered choice, nil when the file does not exist yet. A server value that is not a
  /// server URL is refused, naming the file.
  public static func load(stateDirectory: String) throws(UsageError) -> RememberedServer? {
    let path = path(in: stateDirectory)
    let file: KeyValueFile?
    do {
      file = try KeyValueFile.load(path)
    } catch {
      throw UsageError("\(error)")
    }
    guard let file else { return nil }
    var remembered = RememberedServer(caFile: file["ca-file"].flatMap { $0.isEmpty ? nil : $0 })
    if let text = file["server"], !text.isEmpty {
      guard let url = Validation.serverURL(text) else {
        throw UsageError(
          "\(path): '\(text)' is not a server URL; run 'susi server use embedded' to go back")
      }
      remembered.server = url
    }
    return remembered
  }

  public func save(stateDirectory: String) throws(PrivateFile.Failure) {
    var file = KeyValueFile()
    file["server"] = server
    file["ca-file"] = caFile
    try file.save(
      Self.path(in: stateDirectory),
      header: ["The server chosen with 'susi server use' or '/server'; written by susi."])
  }

  /// Remembers `url` (`embedded` or a server URL) for later runs; a CA file remembered for
  /// another server is forgotten, since it belongs to the server it was given for.
  public static func remember(_ url: String, stateDirectory: String) throws {
    var choice = try load(stateDirectory: stateDirectory) ?? RememberedServer()
    if choice.server != url { choice.caFile = nil }
    choice.server = url
    try choice.save(stateDirectory: stateDirectory)
  }
}
