public import SusiCore
import SusiJSON

/// The state's canonical JSON (keys sorted throughout), written in pieces of about `pieceSize`
/// bytes: the body of `susi serve`'s `GET /state` and of the web inspector's states.
///
/// The large fields (transcript, history, searches, link previews, images, skills) are turned
/// into JSON a page of entries at a time, so a request holds one page and one piece, never the
/// whole document: a state of hundreds of megabytes is sent in the same little memory as a
/// small one, and nothing is kept once the response ends.
public struct StateDocument: Sendable {
  /// Bytes gathered before they are handed to the connection.
  public static let pieceSize = 64 * 1024
  /// Entries of a large field turned into JSON at a time.
  public static let entriesPerPage = 64

  let state: State
  /// Whether the `access` field (who holds which key) is included.
  let includesAccess: Bool

  /// The document of `state`; `includesAccess` adds who holds which key.
  public init(state: State, includesAccess: Bool) {
    self.state = state
    self.includesAccess = includesAccess
  }

  /// Writes the whole document through `write`, piece by piece.
  public func write(_ write: @escaping @Sendable ([UInt8]) async throws -> Void) async throws {
    var out = Pieces(write: write)
    out.append(UInt8(ascii: "{"))
    var first = true
    for field in State.fields {
      // As in the canonical form, `access` is left out while untouched.
      if field.name == "access" && (!includesAccess || state.access == AccessControl.initial) {
        continue
      }
      if !first { out.append(UInt8(ascii: ",")) }
      first = false
      var key = JSONWriter(capacity: 32)
      key.string(field.name)
      key.byte(UInt8(ascii: ":"))
      out.append(contentsOf: key.bytes)
      if let paging = Paging.of(field.name, in: state) {
        try await writePaged(field, paging, to: &out)
      } else {
        out.append(contentsOf: Self.canonical(field, in: state))
        try await out.flushIfFull()
      }
    }
    out.append(UInt8(ascii: "}"))
    try await out.flush()
  }

  /// An array or object field, a page of entries at a time: each page is written as the whole
  /// field of a state holding only those entries, and its brackets are dropped.
  private func writePaged(_ field: State.Field, _ paging: Paging, to out: inout Pieces)
    async throws
  {
    out.append(paging.open)
    var empty = true
    for index in 0..<paging.pageCount {
      let bytes = Self.canonical(field, in: paging.page(index))
      guard bytes.count > 2 else { continue }
      if !empty { out.append(UInt8(ascii: ",")) }
      empty = false
      out.append(contentsOf: bytes[1..<(bytes.count - 1)])
      try await out.flushIfFull()
    }
    out.append(paging.close)
  }

  /// One field of `state` in canonical form (objects sorted throughout).
  private static func canonical(_ field: State.Field, in state: State) -> [UInt8] {
    field.json(in: state).sortedRecursively().compactBytes
  }

  /// How a large field is cut into pages: each page is a state holding only its entries.
  private struct Paging {
    let pageCount: Int
    let open: UInt8
    let close: UInt8
    let page: (Int) -> State

    /// The fields written a page at a time.
    static func of(_ name: String, in state: State) -> Paging? {
      switch name {
      case "transcript": array(state.transcript) { $0.transcript = $1 }
      case "history": array(state.history) { $0.history = $1 }
      case "searches": object(state.searches) { $0.searches = $1 }
      case "linkPreviews": object(state.linkPreviews) { $0.linkPreviews = $1 }
      case "images": object(state.images) { $0.images = $1 }
      case "skills": object(state.skills) { $0.skills = $1 }
      default: nil
      }
    }

    private static func array<Entry>(
      _ entries: [Entry], _ place: @escaping (inout State, [Entry]) -> Void
    ) -> Paging {
      let size = StateDocument.entriesPerPage
      return Paging(
        pageCount: (entries.count + size - 1) / size, open: UInt8(ascii: "["),
        close: UInt8(ascii: "]")
      ) { index in
        var page = State()
        place(&page, Array(entries[(index * size)..<min((index + 1) * size, entries.count)]))
        return page
      }
    }

    /// Keys are sorted as the canonical form sorts them, so the pages follow each other in
    /// the document's order.
    private static func object<Value>(
      _ dictionary: [String: Value], _ place: @escaping (inout State, [String: Value]) -> Void
    ) -> Paging {
      let size = StateDocument.entriesPerPage
      let keys = dictionary.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
      return Paging(
        pageCount: (keys.count + size - 1) / size, open: UInt8(ascii: "{"),
        close: UInt8(ascii: "}")
      ) { index in
        var page = State()
        let slice = keys[(index * size)..<min((index + 1) * size, keys.count)]
        place(&page, Dictionary(uniqueKeysWithValues: slice.map { ($0, dictionary[$0]!) }))
        return page
      }
    }
  }

  /// Gathers bytes and hands them on once there are `pieceSize` of them.
  private struct Pieces {
    let write: @Sendable ([UInt8]) async throws -> Void
    var buffer: [UInt8] = []

    mutating func append(_ byte: UInt8) { buffer.append(byte) }
    mutating func append<Bytes: Sequence>(contentsOf bytes: Bytes) where Bytes.Element == UInt8 {
      buffer.append(contentsOf: bytes)
    }

    mutating func flushIfFull() async throws {
      if buffer.count >= StateDocument.pieceSize { try await flush() }
    }

    mutating func flush() async throws {
      let piece = buffer
      buffer = []
      buffer.reserveCapacity(StateDocument.pieceSize)
      try await write(piece)
    }
  }
}
