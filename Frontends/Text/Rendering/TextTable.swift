import SusiCommandLine
public import SusiTerminal

extension TextRenderer {
  /// The table as aligned columns fitted to this renderer's width (see `TextTable.render`).
  public func table(_ table: TextTable) -> String {
    table.render(width: width, glyphs: glyphs, bold: { style.bold($0) })
  }
}
