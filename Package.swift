// swift-tools-version: 6.1
import PackageDescription

/// Every target builds with the same strict settings: Swift 6 language mode, explicit `any`, a
/// file sees only the members of modules it imports itself, and imports are internal unless a
/// file's public API needs them (`public import`).
let strict: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility"),
  .enableUpcomingFeature("InternalImportsByDefault"),
]

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
    // Terminal: standard input as lines, the line editor, raw mode, display width, glyphs.
    .target(name: "SusiTerminal", swiftSettings: strict),

    // HTTP: the message pieces client and server share, and the client (plain sockets for
    // http, URLSession for https) that the runner and the webhook deliveries send with.
    .target(name: "SusiHTTPTypes", swiftSettings: strict),
    .target(name: "SusiHTTPClient", dependencies: ["SusiHTTPTypes"], swiftSettings: strict),

    // Runtime: the event log, the store, the effects runner, the outbound webhook deliveries.
    .target(name: "SusiEventLog", dependencies: ["SusiJSON"], swiftSettings: strict),
    .target(
      name: "SusiStore",
      dependencies: ["SusiCore", "SusiEventLog", "SusiJSON", "SusiCrypto", "SusiClock"],
      swiftSettings: strict),
    .target(
      name: "SusiRunner",
      dependencies: [
        "SusiCore", "SusiStore", "SusiJSON", "SusiCrypto", "SusiFiles", "SusiClock",
        "SusiHTTPClient", "SusiHTTPTypes",
      ],
      swiftSettings: strict),
    .target(
      name: "SusiDelivery",
      dependencies: [
        "SusiClock", "SusiCore", "SusiCrypto", "SusiFiles", "SusiHTTPClient", "SusiHTTPTypes",
        "SusiJSON", "SusiStore",
      ], swiftSettings: strict),

    // Servers: our HTTP/1.1 server and the embedded SUSI-compatible server built on it.
    .systemLibrary(name: "CEpoll"),
    .target(
      name: "SusiHTTP", dependencies: ["CEpoll", "SusiClock", "SusiHTTPTypes"],
      swiftSettings: strict),
    .target(
      name: "SusiServer",
      dependencies: [
        "SusiHTTP", "SusiJSON", "SusiCrypto", "SusiFiles", "SusiClock", "SusiHTTPTypes",
      ],
      resources: [.copy("DefaultSkills")], swiftSettings: strict),

    // Keys and who may do what, for the HTTP API of `susi serve` and `susi web`, and the key and
    // group changes `susi serve` makes.
    .target(
      name: "SusiAccess",
      dependencies: [
        "SusiCore", "SusiCrypto", "SusiFiles", "SusiHTTPTypes", "SusiJSON", "SusiStore",
      ],
      swiftSettings: strict),

    // What every command shares: the command-line layer (parsing, help, exit codes, signals,
    // terminal output) and the composition root that opens the log, the store, the runner and
    // the built-in server.
    .target(name: "SusiCommandLine", dependencies: ["SusiCore"], swiftSettings: strict),
    .target(
      name: "SusiApplication",
      dependencies: [
        "SusiCore", "SusiStore", "SusiEventLog", "SusiRunner", "SusiServer", "SusiJSON",
        "SusiCommandLine", "SusiClock", "SusiHTTPClient",
      ],
      swiftSettings: strict),

    // Frontends: thin layers that turn input into intents and events into output.
    .target(
      name: "SusiText",
      dependencies: [
        "SusiCore", "SusiStore", "SusiJSON", "SusiApplication", "SusiCommandLine", "SusiServer",
        "SusiTerminal",
      ],
      path: "Frontends/Text",
      swiftSettings: strict),
    .target(
      name: "SusiJSONLines",
      dependencies: [
        "SusiCore", "SusiStore", "SusiJSON", "SusiApplication", "SusiCommandLine", "SusiTerminal",
      ],
      path: "Frontends/JSONLines",
      swiftSettings: strict),
    .target(
      name: "SusiWebhook",
      dependencies: [
        "SusiCore", "SusiStore", "SusiJSON", "SusiHTTP", "SusiApplication", "SusiCommandLine",
        "SusiClock", "SusiHTTPClient", "SusiHTTPTypes", "SusiDelivery", "SusiAccess",
      ],
      path: "Frontends/Webhook", swiftSettings: strict),
    .target(
      name: "SusiWeb",
      dependencies: [
        "SusiWebhook", "SusiHTTP", "SusiCore", "SusiStore", "SusiRunner", "SusiCrypto", "SusiFiles",
        "SusiJSON", "SusiApplication", "SusiCommandLine", "SusiHTTPTypes", "SusiAccess",
      ],
      path: "Frontends/Web", exclude: ["Screenshots"], resources: [.copy("Resources")],
      swiftSettings: strict),
    .target(
      name: "SusiReplay",
      dependencies: [
        "SusiCore", "SusiStore", "SusiJSON", "SusiCrypto", "SusiFiles", "SusiCommandLine",
        "SusiEventLog",
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
        "SusiApplication", "SusiCommandLine", "SusiClock", "SusiHTTPClient", "SusiHTTPTypes",
        "SusiAccess",
      ],
      path: "Sources/SusiBench", swiftSettings: strict),
    // A deterministic, realistic event stream shared by the benchmarks and the tests.
    .target(name: "SusiSamples", dependencies: ["SusiCore", "SusiJSON"], swiftSettings: strict),

    // Tests
    // A loopback HTTP client and threads for blocking waits: nothing of susi's own.
    .target(name: "SusiHTTPTesting", swiftSettings: strict),
    // Pure helpers for the core: the reducer tester.
    .target(
      name: "SusiCoreTesting", dependencies: ["SusiCore", "SusiJSON"], swiftSettings: strict),
    // The runtime's helpers: a scripted runner, a fake transport, a test clock, and the driver
    // of the built binary.
    .target(
      name: "SusiTesting",
      dependencies: [
        "SusiCore", "SusiStore", "SusiRunner", "SusiClock", "SusiCoreTesting", "SusiFiles",
        "SusiHTTPClient", "SusiHTTPTesting", "SusiHTTPTypes",
      ],
      swiftSettings: strict),
    .testTarget(
      name: "SusiJSONTests", dependencies: ["SusiJSON", "SusiCrypto"], swiftSettings: strict),
    .testTarget(name: "SusiCryptoTests", dependencies: ["SusiCrypto"], swiftSettings: strict),
    .testTarget(name: "SusiFilesTests", dependencies: ["SusiFiles"], swiftSettings: strict),
    .testTarget(
      name: "SusiTerminalTests", dependencies: ["SusiTerminal", "SusiTesting"],
      swiftSettings: strict),
    .testTarget(
      name: "SusiClockTests", dependencies: ["SusiClock", "SusiTesting"], swiftSettings: strict),
    .testTarget(
      name: "SusiCoreTests",
      dependencies: ["SusiCore", "SusiCoreTesting", "SusiJSON", "SusiCrypto"],
      swiftSettings: strict),
    .testTarget(
      name: "SusiEventLogTests",
      dependencies: ["SusiEventLog", "SusiStore", "SusiTesting", "SusiCrypto", "SusiSamples"],
      swiftSettings: strict),
    .testTarget(
      name: "SusiStoreTests",
      dependencies: [
        "SusiStore", "SusiCore", "SusiTesting", "SusiEventLog", "SusiJSON", "SusiSamples",
        "SusiClock", "SusiCoreTesting",
      ],
      swiftSettings: strict),
    .testTarget(
      name: "SusiRunnerTests",
      dependencies: [
        "SusiRunner", "SusiCore", "SusiTesting", "SusiServer", "SusiStore", "SusiHTTP", "SusiJSON",
        "SusiCrypto", "SusiEventLog", "SusiClock", "SusiHTTPClient", "SusiHTTPTypes",
        "SusiCoreTesting",
      ],
      swiftSettings: strict),
    .testTarget(
      name: "SusiDeliveryTests",
      dependencies: [
        "SusiClock", "SusiCore", "SusiDelivery", "SusiHTTPClient", "SusiHTTPTypes", "SusiStore",
        "SusiTesting", "SusiHTTPTesting",
      ], swiftSettings: strict),
    .testTarget(
      name: "SusiHTTPTests",
      dependencies: ["SusiHTTP", "SusiCrypto", "SusiClock", "SusiHTTPTesting", "SusiHTTPTypes"],
      swiftSettings: strict),
    .testTarget(
      name: "SusiServerTests",
      dependencies: [
        "SusiServer", "SusiHTTP", "SusiJSON", "SusiCrypto", "SusiFiles", "SusiClock",
        "SusiHTTPTesting", "SusiHTTPTypes",
      ],
      swiftSettings: strict),
    // Frontend tests, one target per frontend; those that run the built `susi` depend on it.
    .testTarget(
      name: "SusiAccessTests",
      dependencies: ["SusiAccess", "SusiTesting", "SusiClock", "SusiCore", "SusiStore"],
      swiftSettings: strict),
    .testTarget(
      name: "TextTests",
      dependencies: [
        "SusiText", "SusiCommandLine", "SusiCore", "SusiHTTP", "SusiHTTPTesting", "SusiJSON",
        "SusiRunner", "SusiServer", "SusiStore", "SusiTesting", "SusiHTTPClient", "SusiClock",
        "SusiTerminal", "susi",
      ],
      exclude: ["Golden"], swiftSettings: strict),
    .testTarget(
      name: "JSONLinesTests",
      dependencies: [
        "SusiJSONLines", "SusiCommandLine", "SusiCore", "SusiHTTPTesting", "SusiJSON", "SusiStore",
        "SusiTesting", "SusiClock", "susi",
      ],
      swiftSettings: strict),
    .testTarget(
      name: "WebhookTests",
      dependencies: [
        "SusiJSONLines", "SusiWebhook", "SusiTesting", "SusiFiles", "SusiApplication",
        "SusiCommandLine", "SusiCore", "SusiCrypto", "SusiEventLog", "SusiHTTP", "SusiJSON",
        "SusiRunner", "SusiStore", "SusiClock", "SusiHTTPClient", "SusiHTTPTesting",
        "SusiHTTPTypes", "SusiCoreTesting", "SusiDelivery", "SusiAccess", "susi",
      ],
      swiftSettings: strict),
    .testTarget(
      name: "ReplayTests",
      dependencies: [
        "SusiApplication", "SusiCommandLine", "SusiCore", "SusiEventLog", "SusiJSON", "SusiStore",
        "SusiTesting", "SusiServer", "susi",
      ],
      swiftSettings: strict),
    .testTarget(
      name: "CommandLineTests",
      dependencies: [
        "SusiApplication", "SusiCommandLine", "SusiCore", "SusiFiles", "SusiHTTPTesting",
        "SusiStore", "SusiTesting", "SusiCoreTesting", "susi",
      ],
      swiftSettings: strict),
    .testTarget(
      name: "WebTests",
      dependencies: [
        "SusiWeb", "SusiWebhook", "SusiTesting", "SusiStore", "SusiCore", "SusiHTTP", "SusiJSON",
        "SusiCrypto", "SusiEventLog", "SusiApplication", "SusiCommandLine", "SusiHTTPTesting",
        "SusiHTTPTypes", "SusiServer", "SusiAccess", "susi",
      ],
      swiftSettings: strict),
  ]
)
