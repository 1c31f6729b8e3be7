/// The version of susi, printed by `--version`.
public enum SusiVersion {
  public static let current = "0.1.0"
}
