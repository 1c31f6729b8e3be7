import Foundation
import SusiRoundTrip

/// Where each input's log and snapshot are written (a folder per input, removed after it).
private let scratch: String = {
  let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
    "susi-fuzz-\(getpid())"
  ).path
  try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
  return folder
}()

/// libFuzzer's entry point: one input, as a server's reply (and as an intent line). A record
/// that does not read back, or a reply read from its bytes to something other than its tree
/// gives, stops the run with the reason, and libFuzzer keeps the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
  let input = Array(UnsafeBufferPointer(start: data, count: count))
  do {
    try RecordRoundTrip.check(input, under: scratch)
    try ReaderAgreement.check(input)
  } catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    abort()
  }
  return 0
}

/// libFuzzer's driver, which parses its options and runs the inputs through `callback`.
@_silgen_name("LLVMFuzzerRunDriver")
private func runFuzzerDriver(
  _ argc: UnsafeMutablePointer<CInt>,
  _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
  _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

/// The program's entry point: SwiftPM links an executable's `main` to `<module>_main`, which
/// `-parse-as-library` leaves undefined, so this hands control to libFuzzer's driver itself.
@_cdecl("SusiFuzz_main")
public func fuzzMain(
  _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> CInt {
  var count = argc
  var arguments = argv
  return runFuzzerDriver(&count, &arguments) { data, size in fuzzOneInput(data, size) }
}
