/// Number formatting without a locale: renderings must not change with the machine's settings.
public enum NumberText {
  /// `value` with exactly `decimals` digits after the point (`4.33` → `"4.3"` for 1).
  public static func fixed(_ value: Double, decimals: Int) -> String {
    guard value.isFinite, abs(value) < 1e15, decimals >= 0, decimals <= 9 else { return "\(value)" }
    var scale: Int64 = 1
    for _ in 0..<decimals { scale *= 10 }
    let scaled = Int64((abs(value) * Double(scale)).rounded())
    let sign = value < 0 && scaled != 0 ? "-" : ""
    let whole = scaled / scale
    guard decimals > 0 else { return "\(sign)\(whole)" }
    var fraction = String(scaled % scale)
    while fraction.count < decimals { fraction = "0" + fraction }
    return "\(sign)\(whole).\(fraction)"
  }

  /// `value` with at most `decimals` digits after the point and no trailing zeros
  /// (`52.520000` → `"52.52"`, `13.0` → `"13"`).
  public static func trimmed(_ value: Double, maximumDecimals decimals: Int) -> String {
    var text = fixed(value, decimals: decimals)
    guard text.contains(".") else { return text }
    while text.hasSuffix("0") { text.removeLast() }
    if text.hasSuffix(".") { text.removeLast() }
    return text == "-0" ? "0" : text
  }

  /// `count` and `noun`, plural unless one: `1 skill`, `3 skills`.
  public static func counted(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
  }
}
