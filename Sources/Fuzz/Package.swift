// swift-tools-version: 6.1
import PackageDescription

// susi-fuzz: a libFuzzer target, kept out of the product. It feeds arbitrary bytes through the
// path from a server's reply to the log (decode, reduce, encode, replay, snapshot) and stops on
// the first input for which a record does not read back. It depends on the susi package by
// path, never the other way round. Build and run from the top of the repository:
//
//     swift build -c release --package-path Sources/Fuzz \
//       -Xswiftc -sanitize=fuzzer -Xswiftc -parse-as-library
//     mkdir -p .build/fuzz-corpus
//     TMPDIR=/dev/shm Sources/Fuzz/.build/release/susi-fuzz .build/fuzz-corpus \
//       Sources/Fuzz/Seeds -dict=Sources/Fuzz/json.dict -max_len=8192 -max_total_time=1800

let package = Package(
  name: "susi-fuzz",
  platforms: [.macOS(.v15)],
  products: [.executable(name: "susi-fuzz", targets: ["SusiFuzz"])],
  dependencies: [.package(name: "susi", path: "../..")],
  targets: [
    .executableTarget(
      name: "SusiFuzz",
      dependencies: [.product(name: "SusiRoundTrip", package: "susi")],
      swiftSettings: [
        .enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility"),
        .enableUpcomingFeature("InternalImportsByDefault"),
      ])
  ]
)
