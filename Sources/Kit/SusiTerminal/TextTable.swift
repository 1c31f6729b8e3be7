/// Rows of cells under optional headers, for `TextRenderer.table`.
public struct TextTable: Sendable, Equatable {
  public enum Alignment: Sendable, Equatable { case left, right }

  /// Column headers; all empty (or none) means no header line.
  public var headers: [String]
  public var rows: [[String]]
  /// Per column; nil = numbers right, everything else left.
  public var alignments: [Alignment]?
  /// Spaces before every line.
  public var indent: Int

  public init(
    headers: [String] = [], rows: [[String]], alignments: [Alignment]? = nil, indent: Int = 0
  ) {
    self.headers = headers
    self.rows = rows
    self.alignments = alignments
    self.indent = indent
  }
}

extension TextTable {
  /// The table as aligned columns for a terminal `width` columns wide: display width decides
  /// the padding (CJK and emoji take two columns), cells are put on one line, and when the table
  /// is wider than the terminal the widest columns are cut with an ellipsis. Headers are drawn
  /// through `bold` and underlined with `glyphs.rule`.
  public func render(
    width: Int, glyphs: Glyphs = .utf8, bold: (String) -> String = { $0 }
  ) -> String {
    let table = self
    let allColumns = max(table.headers.count, table.rows.map(\.count).max() ?? 0)
    func cell(_ row: [String], _ column: Int) -> String {
      column < row.count ? row[column].singleLine : ""
    }
    // A column with nothing in it would only add a gap.
    let kept = (0..<allColumns).filter { column in
      !cell(table.headers, column).isEmpty || table.rows.contains { !cell($0, column).isEmpty }
    }
    let columnCount = kept.count
    guard columnCount > 0 else { return "" }
    func cells(_ row: [String]) -> [String] { kept.map { cell(row, $0) } }
    let headers = cells(table.headers)
    let showHeaders = headers.contains { !$0.isEmpty }
    let rows = table.rows.map(cells)
    let alignments = (0..<columnCount).map { column -> TextTable.Alignment in
      if let given = table.alignments, kept[column] < given.count { return given[kept[column]] }
      let values = rows.map { $0[column] }.filter { !$0.isEmpty }
      return !values.isEmpty && values.allSatisfy(Self.isNumeric) ? .right : .left
    }
    var natural = [Int](repeating: 0, count: columnCount)
    for row in (showHeaders ? [headers] : []) + rows {
      for (column, cell) in row.enumerated() {
        natural[column] = max(natural[column], cell.displayWidth)
      }
    }
    let gap = 2
    let widths = Self.fitColumns(natural, into: width - table.indent - gap * (columnCount - 1))
    let prefix = String(repeating: " ", count: table.indent)

    func line(_ row: [String], decorate: (String) -> String = { $0 }) -> String {
      var parts: [String] = []
      for column in 0..<columnCount {
        let cell = row[column].truncated(toWidth: widths[column], ellipsis: glyphs.ellipsis)
        let isLast = column == columnCount - 1
        let padded =
          isLast && alignments[column] == .left
          ? cell : cell.padded(toWidth: widths[column], alignRight: alignments[column] == .right)
        parts.append(decorate(padded))
      }
      var text = prefix + parts.joined(separator: String(repeating: " ", count: gap))
      while text.hasSuffix(" ") { text.removeLast() }
      return text
    }

    var lines: [String] = []
    if showHeaders {
      lines.append(line(headers, decorate: bold))
      lines.append(
        prefix + widths.map { String(repeating: glyphs.rule, count: $0) }.joined(separator: "  "))
    }
    for row in rows { lines.append(line(row)) }
    return lines.joined(separator: "\n")
  }

  /// Column widths that fit `available` columns: every column keeps its natural width if they
  /// all fit; otherwise the widest ones are cut down to a common limit, never below 6 columns
  /// (or their natural width).
  static func fitColumns(_ natural: [Int], into available: Int) -> [Int] {
    guard natural.reduce(0, +) > available else { return natural }
    let floor = 6
    var limit = natural.max() ?? 0
    func widths(_ limit: Int) -> [Int] { natural.map { min($0, max(limit, floor)) } }
    while limit > floor, widths(limit).reduce(0, +) > available { limit -= 1 }
    return widths(limit)
  }

  /// Whether `text` reads as a number, for right-aligning table columns.
  static func isNumeric(_ text: String) -> Bool {
    var body = Substring(text)
    if body.hasPrefix("-") || body.hasPrefix("+") { body = body.dropFirst() }
    if body.hasSuffix("%") { body = body.dropLast() }
    guard !body.isEmpty, body.first != ".", body.last != "." else { return false }
    var seenPoint = false
    for character in body {
      if character == "." {
        if seenPoint { return false }
        seenPoint = true
      } else if character == "," {
        continue
      } else if !("0"..."9").contains(character) {
        return false
      }
    }
    return true
  }
}
