// swift-tools-version: 6.1
import PackageDescription

// susi-bench: speed and memory figures, kept out of the product. It depends on the susi package
// by path, never the other way round. Run from the top of the repository:
//
//     swift run -c release --package-path Sources/Benchmarks susi-bench

let package = Package(
  name: "susi-benchmarks",
  platforms: [.macOS(.v15)],
  products: [.executable(name: "susi-bench", targets: ["SusiBench"])],
  dependencies: [.package(name: "susi", path: "../..")],
  targets: [
    .executableTarget(
      name: "SusiBench",
      dependencies: [
        .product(name: "SusiModules", package: "susi"), .product(name: "CEpoll", package: "susi"),
      ],
      swiftSettings: [
        .enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility"),
        .enableUpcomingFeature("InternalImportsByDefault"),
      ])
  ]
)
