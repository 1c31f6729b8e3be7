extension JSONDiff.Change {
  /// The change as JSON members: `op` (`add`, `remove` or `change`), `path`, and `value` or
  /// `from` and `to`.
  public func write(to o: inout JSONWriter.ObjectFields) {
    switch self {
    case .added(let path, let value), .removed(let path, let value):
      if case .added = self { o.field("op", "add") } else { o.field("op", "remove") }
      o.field("path", path)
      o.field("value", value)
    case .changed(let path, let old, let new):
      o.field("op", "change")
      o.field("path", path)
      o.field("from", old)
      o.field("to", new)
    }
  }
}
