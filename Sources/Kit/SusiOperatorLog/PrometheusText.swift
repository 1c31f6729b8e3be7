/// Metrics in the Prometheus text exposition format (version 0.0.4): each family's `# HELP` and
/// `# TYPE` lines, then its samples, every line ending in `\n`.
public struct PrometheusText: Sendable {
  /// The text so far.
  public private(set) var text = ""

  public init() {}

  /// Starts the family `name` of `type` (`counter`, `gauge` or `histogram`).
  public mutating func family(_ name: String, _ type: String, help: String) {
    text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
  }

  /// One sample of `name` with `labels` (their values escaped).
  public mutating func sample(
    _ name: String, labels: KeyValuePairs<String, String> = [:],
    _ value: some CustomStringConvertible
  ) {
    text += name
    if !labels.isEmpty {
      text += "{" + labels.map { "\($0.key)=\"\(Self.escape($0.value))\"" }.joined(separator: ",")
      text += "}"
    }
    text += " \(value)\n"
  }

  /// A family of one sample.
  public mutating func single(
    _ name: String, _ type: String, help: String, _ value: some CustomStringConvertible
  ) {
    family(name, type, help: help)
    sample(name, value)
  }

  /// A histogram family: the observations at or under each of `bounds` (`cumulative`), then
  /// all of them (`+Inf`), their sum and their count.
  public mutating func histogram(
    _ name: String, help: String, bounds: [Double], cumulative: [Int], sum: Double, count: Int
  ) {
    family(name, "histogram", help: help)
    for (bound, observed) in zip(bounds, cumulative) {
      sample(name + "_bucket", labels: ["le": "\(bound)"], observed)
    }
    sample(name + "_bucket", labels: ["le": "+Inf"], count)
    sample(name + "_sum", sum)
    sample(name + "_count", count)
  }

  /// A label value with `\`, `"` and newlines escaped.
  static func escape(_ value: String) -> String {
    var out = ""
    for c in value {
      switch c {
      case "\\": out += "\\\\"
      case "\"": out += "\\\""
      case "\n": out += "\\n"
      default: out.append(c)
      }
    }
    return out
  }
}
