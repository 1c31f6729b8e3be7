public import SusiOperatorLog

/// `--log-level` and `--log-format`: the operators' log of `susi serve`, `susi server` and
/// `susi web` (one line per request or notable event on stderr).
public enum OperatorLogOptions {
  public static let specs = [
    OptionSpec(
      .logLevel, value: "LEVEL",
      help: "the least that goes to the stderr log: debug, info, warning or error (default info)"),
    OptionSpec(
      .logFormat, value: "FORMAT",
      help: "stderr log lines as json or text (default: text on a terminal, json otherwise)"),
  ]

  /// The log `invocation` asks for, written by `component`; nil (after saying why on stderr)
  /// when a value is not one the options take.
  public static func log(_ invocation: Invocation, component: String) -> OperatorLog? {
    let levelName = invocation.parsed.value(.logLevel) ?? "info"
    guard let level = OperatorLog.Level(name: levelName) else {
      StandardStream.error.line(
        "susi \(component): --log-level takes debug, info, warning or error, not '\(levelName)'")
      return nil
    }
    var format = OperatorLog.Format.chosen()
    if let name = invocation.parsed.value(.logFormat) {
      guard let chosen = OperatorLog.Format(rawValue: name) else {
        StandardStream.error.line(
          "susi \(component): --log-format takes json or text, not '\(name)'")
        return nil
      }
      format = chosen
    }
    return OperatorLog(component: component, level: level, format: format)
  }
}
