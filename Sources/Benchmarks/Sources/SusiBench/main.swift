// susi-bench: prints speed and memory figures. Build and run in release mode:
//
//     swift run -c release --package-path Sources/Benchmarks susi-bench            # every one
//     swift run -c release --package-path Sources/Benchmarks susi-bench log http   # only some
//
// Each benchmark lives in its own file and registers itself in `benchmarks` below.

import Foundation

if let status = runLogChildIfRequested(Array(CommandLine.arguments.dropFirst())) { exit(status) }

// Output piped into `head` must not end a benchmark halfway: it would leave what it started
// behind (a PostgreSQL cluster, `susi` processes, temporary folders). Printing to a closed pipe
// then fails quietly and the benchmark finishes and cleans up.
signal(SIGPIPE, SIG_IGN)
let interruptions = stopStartedServersWhenInterrupted()

/// The `susi` binary the benchmarks run: `SUSI_BINARY` when set, else a `susi` beside this
/// executable (so a copied pair of binaries measures its own `susi`, not the repository's), else
/// the release build of the package two folders up (`swift build -c release` at the top of the
/// repository). Printed once at the start, so a comparison of two builds shows which it ran.
let builtSusi: String = {
  if let path = ProcessInfo.processInfo.environment["SUSI_BINARY"] { return path }
  let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
  if let me {
    let beside = URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("susi")
    if FileManager.default.isExecutableFile(atPath: beside.path) { return beside.path }
  }
  let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
  return root.appendingPathComponent(".build/release/susi").path
}()

/// One named benchmark: prints its own figures to stdout.
struct Benchmark {
  let name: String
  let summary: String
  let run: @Sendable ([String]) async throws -> Void
}

let benchmarks: [Benchmark] = [
  logBenchmark,
  httpBenchmark,
  susiServerBenchmark,
  runnerBenchmark,
  chatsBenchmark,
  jsonlBenchmark,
  webhookBenchmark,
  overloadBenchmark,
  transportBenchmark,
  realLogBenchmark,
  postgresBenchmark,
  postgresStartProbe,
  fleetBenchmark,
  snapshotBenchmark,
]

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
  print("usage: susi-bench [NAME...]\n\nbenchmarks:")
  for benchmark in benchmarks {
    print(
      "  \(benchmark.name.padding(toLength: 10, withPad: " ", startingAt: 0)) \(benchmark.summary)")
  }
  exit(0)
}
let selected = arguments.filter { !$0.hasPrefix("-") }
let unknown = selected.filter { name in !benchmarks.contains { $0.name == name } }
if !unknown.isEmpty {
  FileHandle.standardError.write(
    Data("susi-bench: unknown benchmark \(unknown.joined(separator: ", ")); see --help\n".utf8))
  exit(64)
}
#if DEBUG
  FileHandle.standardError.write(
    Data("susi-bench: this is a debug build; figures mean little. Use -c release.\n".utf8))
#endif
print("susi-bench runs \(builtSusi)")
for benchmark in benchmarks where selected.isEmpty || selected.contains(benchmark.name) {
  print("== \(benchmark.name): \(benchmark.summary)")
  do {
    try await benchmark.run(arguments)
  } catch {
    FileHandle.standardError.write(Data("susi-bench \(benchmark.name): \(error)\n".utf8))
    exit(1)
  }
}
