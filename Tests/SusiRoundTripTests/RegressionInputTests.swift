import Foundation
import SusiRoundTrip
import Testing

/// Every input in `Inputs/`: replies that once broke the record property or made the two reply
/// readers disagree (found by hand or by the fuzz target, which writes each crashing input as a
/// file), checked again on every run.
@Suite struct RegressionInputTests {
  static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Inputs")

  static let inputs: [String] =
    ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
    .filter { !$0.hasPrefix(".") }.sorted()

  @Test func thereAreInputs() { #expect(!Self.inputs.isEmpty) }

  @Test(arguments: inputs)
  func anInputThatOnceFailedPassesBothChecks(name: String) throws {
    let bytes = Array(try Data(contentsOf: Self.folder.appendingPathComponent(name)))
    let scratch = try HostileReplyTests.folder()
    defer { try? FileManager.default.removeItem(atPath: scratch) }
    do {
      try RecordRoundTrip.check(bytes, under: scratch)
      try ReaderAgreement.check(bytes)
    } catch {
      Issue.record("\(name): \(error)")
    }
  }
}
