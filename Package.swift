// swift-tools-version: 6.1
import PackageDescription

/// Every target builds with the same strict settings: Swift 6 language mode and explicit `any`.
let strict: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

let package = Package(
  name: "susi",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "susi", targets: ["susi"]),
    .executable(name: "susi-bench", targets: ["SusiBench"]),
  ],
  targets: [
    // Time: wall and monotonic time, sleeping, and the manual time source tests move by hand.
    .target(name: "SusiClock", swiftSettings: strict),

    // Core: pure values and the reducer, plus the pure libraries they stand on.
    .target(name: "SusiJSON", swiftSettings: strict),
    .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
    .target(name: "SusiCrypto", dependencies: ["COpenSSL"], swiftSettings: strict),
    .target(name: "SusiCore", dependencies: ["SusiJSON"], swiftSettings: strict),
    .target(name: "SusiFiles", swiftSettings: strict),

    // Runtime: the event log, the store, the effects runner.
    .target(name: "SusiEventLog", dependencies: ["SusiJSON"], swiftSettings: strict),
    .target(
      name: "SusiStore",
      dependencies: ["SusiCore", "SusiEventLog", "SusiJSON", "SusiCrypto", "SusiClock"],
      swiftSettings: strict),
    .target(
      name: "SusiRunner",
      dependencies: [
        "SusiCore", "SusiStore", "SusiJSON", "SusiCrypto", "SusiHTTP", "SusiFiles", "SusiClock",
      ],
      swiftSettings: strict),

    // Servers: our HTTP/1.1 server and the embedded SUSI-compatible server built on it.
    .systemLibrary(name: "CEpoll"),
    .target(name: "SusiHTTP", dependencies: ["CEpoll", "SusiClock"], swiftSettings: strict),
    .target(
      name: "SusiServer",
      dependencies: ["SusiHTTP", "SusiJSON", "SusiCrypto", "SusiFiles", "SusiClock"],
      resources: [.copy("DefaultSkills")], swiftSettings: strict),

    // Frontends: thin layers that turn input into intents and events into output. They share the
    // command-line layer (parsing, help, exit codes, signals, terminal output) and the
    // composition root that opens the log, the store, the runner and the built-in server.
    .target(
      name: "SusiCommandLine", dependencies: ["SusiCore"], path: "Frontends/CommandLine",
      swiftSettings: strict),
    .target(
      name: "SusiApplication",
      dependencies: [
        "SusiCore", "SusiStore", "SusiEventLog", "SusiRunner", "SusiServer", "SusiJSON",
        "SusiCommandLine", "SusiClock",
      ],
      path: "Frontends/App", swiftSettings: strict),
    .target(
      name: "SusiText",
      dependencies: ["SusiCore", "SusiStore", "SusiJSON", "SusiApplication", "SusiCommandLine"],
      path: "Frontends/Text",
      swiftSettings: strict),
    .target(
      name: "SusiJSONLines",
      dependencies: ["SusiCore", "SusiStore", "SusiJSON", "SusiApplication", "SusiCommandLine"],
      path: "Frontends/JSONLines",
      swiftSettings: strict),
    .target(
      name: "SusiWebhook",
      dependencies: [
        "SusiCore", "SusiStore", "SusiRunner", "SusiJSON", "SusiHTTP", "SusiCrypto", "SusiFiles",
        "SusiApplication", "SusiCommandLine", "SusiClock",
      ],
      path: "Frontends/Webhook", swiftSettings: strict),
    .target(
      name: "SusiWeb",
      dependencies: [
        "SusiWebhook", "SusiHTTP", "SusiCore", "SusiStore", "SusiRunner", "SusiCrypto", "SusiFiles",
        "SusiJSON", "SusiApplication", "SusiCommandLine",
      ],
      path: "Frontends/Web", exclude: ["Screenshots"], resources: [.copy("Resources")],
      swiftSettings: strict),
    .target(
      name: "SusiReplay",
      dependencies: [
        "SusiCore", "SusiStore", "SusiJSON", "SusiCrypto", "SusiFiles", "SusiCommandLine",
      ],
      path: "Frontends/Replay",
      swiftSettings: strict),
    .executableTarget(
      name: "susi",
      dependencies: [
        "SusiText", "SusiJSONLines", "SusiWebhook", "SusiWeb", "SusiReplay", "SusiServer", "CEpoll",
        "SusiCommandLine",
      ],
      path: "Frontends/susi", swiftSettings: strict),

    // Benchmarks: a release-build executable that prints its figures.
    .executableTarget(
      name: "SusiBench",
      dependencies: [
        "SusiCore", "SusiEventLog", "SusiStore", "SusiJSON", "SusiHTTP", "SusiServer",
        "SusiSamples", "SusiJSONLines", "SusiWebhook", "SusiRunner", "CEpoll", "SusiFiles",
        "SusiApplication", "SusiCommandLine", "SusiClock",
      ],
      path: "Sources/SusiBench", swiftSettings: strict),
    // A deterministic, realistic event stream shared by the benchmarks and the tests.
    .target(name: "SusiSamples", dependencies: ["SusiCore", "SusiJSON"], swiftSettings: strict),

    // Tests
    .target(
      name: "SusiTesting",
      dependencies: ["SusiCore", "SusiStore", "SusiRunner", "SusiJSON", "SusiHTTP", "SusiClock"],
      swiftSettings: strict),
    .testTarget(
      name: "SusiJSONTests", dependencies: ["SusiJSON", "SusiCrypto"], swiftSettings: strict),
    .testTarget(name: "SusiCryptoTests", dependencies: ["SusiCrypto"], swiftSettings: strict),
    .testTarget(name: "SusiFilesTests", dependencies: ["SusiFiles"], swiftSettings: strict),
    .testTarget(name: "SusiClockTests", dependencies: ["SusiClock"], swiftSettings: strict),
    .testTarget(
      name: "SusiCoreTests", dependencies: ["SusiCore", "SusiTesting", "SusiJSON", "SusiCrypto"],
      swiftSettings: strict),
    .testTarget(
      name: "SusiEventLogTests",
      dependencies: ["SusiEventLog", "SusiStore", "SusiTesting", "SusiCrypto", "SusiSamples"],
      swiftSettings: strict),
    .testTarget(
      name: "SusiStoreTests",
      dependencies: [
        "SusiStore", "SusiCore", "SusiTesting", "SusiEventLog", "SusiJSON", "SusiSamples",
        "SusiClock",
      ],
      swiftSettings: strict),
    .testTarget(
      name: "SusiRunnerTests",
      dependencies: [
        "SusiRunner", "SusiCore", "SusiTesting", "SusiServer", "SusiStore", "SusiHTTP", "SusiJSON",
        "SusiCrypto", "SusiEventLog", "SusiFiles", "SusiClock",
      ],
      swiftSettings: strict),
    .testTarget(
      name: "SusiHTTPTests", dependencies: ["SusiHTTP", "SusiCrypto", "SusiClock"],
      swiftSettings: strict),
    .testTarget(
      name: "SusiServerTests",
      dependencies: ["SusiServer", "SusiHTTP", "SusiJSON", "SusiCrypto", "SusiFiles", "SusiClock"],
      swiftSettings: strict),
    .testTarget(
      name: "FrontendTests",
      dependencies: [
        "SusiText", "SusiJSONLines", "SusiWebhook", "SusiTesting", "SusiFiles", "SusiApplication",
        "SusiCommandLine", "SusiCore", "SusiCrypto", "SusiEventLog", "SusiHTTP", "SusiJSON",
        "SusiRunner", "SusiServer", "SusiStore", "SusiClock", "susi",
      ],
      exclude: ["Text/Golden"], swiftSettings: strict),
    .testTarget(
      name: "WebTests",
      dependencies: [
        "SusiWeb", "SusiWebhook", "SusiTesting", "SusiStore", "SusiCore", "SusiHTTP", "SusiJSON",
        "SusiCrypto", "SusiEventLog", "SusiFiles", "SusiApplication", "SusiCommandLine", "susi",
      ],
      swiftSettings: strict),
  ]
)
