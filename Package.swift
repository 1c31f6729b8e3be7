// swift-tools-version: 6.1
import PackageDescription

/// Every target builds with the same strict settings: Swift 6 language mode, explicit `any`, a
/// file sees only the members of modules it imports itself, and imports are internal unless a
/// file's public API needs them (`public import`).
let strict: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility"),
  .enableUpcomingFeature("InternalImportsByDefault"),
]

/// A library module in one of the layer folders of `Sources/` (`Kit`, `Core`, `Runtime`,
/// `BuiltInServer`, `App`, `Testing`): the folder says the layer, the name says the module.
func module(
  _ name: String, in layer: String, dependencies: [Target.Dependency] = [],
  resources: [Resource]? = nil
) -> Target {
  .target(
    name: name, dependencies: dependencies, path: "Sources/\(layer)/\(name)", resources: resources,
    swiftSettings: strict)
}

/// A frontend: a thin layer that turns input into intents and events into output.
func frontend(
  _ name: String, folder: String, dependencies: [Target.Dependency], exclude: [String] = [],
  resources: [Resource]? = nil
) -> Target {
  .target(
    name: name, dependencies: dependencies, path: "Frontends/\(folder)", exclude: exclude,
    resources: resources, swiftSettings: strict)
}

let package = Package(
  name: "susi",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "susi", targets: ["susi"]),
    // For the benchmarks package in Sources/Benchmarks, which depends on this one by path.
    .library(
      name: "SusiModules",
      targets: [
        "SusiClock", "SusiJSON", "SusiFiles", "SusiHTTPTypes", "SusiHTTPClient", "SusiHTTPServer",
        "SusiCore", "SusiEventLog", "SusiStore", "SusiRunner", "SusiAccess", "SusiServer",
        "SusiCommandLine", "SusiApplication", "SusiJSONLines", "SusiServe", "SusiSamples",
        "SusiTLS", "SusiTLSTesting", "SusiPostgres", "SusiPostgresLog",
      ]),
    .library(name: "CEpoll", targets: ["CEpoll"]),
    // For the fuzz target in Sources/Fuzz, which depends on this package by path.
    .library(name: "SusiRoundTrip", targets: ["SusiRoundTrip"]),
  ],
  targets: [
    // Kit: plumbing that knows nothing of SUSI. Time, JSON, crypto from the system libcrypto,
    // private files, the terminal, and HTTP: the pieces client and server share, the client
    // (plain sockets for http, URLSession for https) and our HTTP/1.1 server.
    module("SusiClock", in: "Kit"),
    module("SusiJSON", in: "Kit"),
    .systemLibrary(
      name: "COpenSSL", path: "Sources/Kit/COpenSSL", pkgConfig: "libcrypto",
      providers: [.apt(["libssl-dev"])]),
    module("SusiCrypto", in: "Kit", dependencies: ["COpenSSL"]),
    module("SusiFiles", in: "Kit"),
    module("SusiTerminal", in: "Kit"),
    module("SusiHTTPTypes", in: "Kit", dependencies: ["CEpoll"]),
    module("SusiTLS", in: "Kit", dependencies: ["COpenSSL"]),
    module("SusiHTTPClient", in: "Kit", dependencies: ["CEpoll", "SusiHTTPTypes", "SusiTLS"]),
    // ECMAScript 5.1 for skills' `!javascript:` rules: the system's duktape, run sandboxed.
    .systemLibrary(
      name: "CDuktape", path: "Sources/Kit/CDuktape", pkgConfig: "duktape",
      providers: [.apt(["duktape-dev"])]),
    module("SusiScript", in: "Kit", dependencies: ["CDuktape"]),
    .systemLibrary(name: "CEpoll", path: "Sources/Kit/CEpoll"),
    // The processor's CRC-32C instruction, for the event log's checksums.
    .systemLibrary(name: "CChecksum", path: "Sources/Kit/CChecksum"),
    module(
      "SusiHTTPServer", in: "Kit",
      dependencies: ["CEpoll", "SusiClock", "SusiHTTPTypes", "SusiTLS"]),
    module(
      "SusiOperatorLog", in: "Kit", dependencies: ["SusiHTTPServer", "SusiHTTPTypes", "SusiJSON"]),
    .systemLibrary(
      name: "CPostgreSQL", path: "Sources/Kit/CPostgreSQL", pkgConfig: "libpq",
      providers: [.apt(["libpq-dev"])]),
    module("SusiPostgres", in: "Kit", dependencies: ["CPostgreSQL"]),

    // Core: pure values and the reducer.
    module("SusiCore", in: "Core", dependencies: ["SusiJSON"]),

    // Runtime: the event log, the store, the effects runner, the outbound webhook deliveries,
    // and keys and who may do what over HTTP.
    module("SusiEventLog", in: "Runtime", dependencies: ["CChecksum", "SusiJSON"]),
    module(
      "SusiStore", in: "Runtime",
      dependencies: ["SusiCore", "SusiEventLog", "SusiJSON", "SusiCrypto", "SusiClock"]),
    module(
      "SusiRunner", in: "Runtime",
      dependencies: [
        "SusiCore", "SusiStore", "SusiJSON", "SusiCrypto", "SusiFiles", "SusiClock",
        "SusiHTTPClient", "SusiHTTPTypes", "SusiTLS",
      ]),
    module(
      "SusiDelivery", in: "Runtime",
      dependencies: [
        "SusiClock", "SusiCore", "SusiCrypto", "SusiFiles", "SusiHTTPClient", "SusiHTTPTypes",
        "SusiJSON", "SusiStore",
      ]),
    module(
      "SusiAccess", in: "Runtime",
      dependencies: [
        "SusiCore", "SusiCrypto", "SusiFiles", "SusiHTTPTypes", "SusiJSON", "SusiStore",
      ]),
    // The event log in PostgreSQL, for several nodes sharing one log.
    module(
      "SusiPostgresLog", in: "Runtime",
      dependencies: [
        "SusiPostgres", "SusiStore", "SusiCore", "SusiEventLog", "SusiJSON",
        "SusiDelivery", "SusiAccess", "SusiFiles",
      ]),

    // The built-in SUSI-compatible server: a second product that speaks the SUSI API from skill
    // files; it knows nothing of the core.
    module(
      "SusiServer", in: "BuiltInServer",
      dependencies: [
        "SusiHTTPServer", "SusiJSON", "SusiCrypto", "SusiFiles", "SusiClock", "SusiHTTPTypes",
        "SusiHTTPClient", "SusiScript",
      ],
      resources: [.copy("DefaultSkills")]),

    // App: what every command shares: the command-line layer (parsing, help, exit codes,
    // signals, terminal output) and the composition root that opens the log, the store, the
    // runner and the built-in server.
    module(
      "SusiCommandLine", in: "App",
      dependencies: [
        "SusiCore", "SusiTerminal", "SusiFiles", "SusiJSON", "SusiOperatorLog", "SusiHTTPServer",
        "SusiTLS",
      ]),
    module(
      "SusiApplication", in: "App",
      dependencies: [
        "SusiCore", "SusiStore", "SusiEventLog", "SusiRunner", "SusiServer", "SusiJSON",
        "SusiCommandLine", "SusiClock", "SusiHTTPClient", "SusiPostgres", "SusiPostgresLog",
      ]),
    // The commands that read, serve or install without driving the state: `susi replay` and
    // `susi log copy` (log tools), `susi server` (the built-in server in the foreground) and
    // `susi install`/`uninstall`.
    module(
      "SusiTools", in: "App",
      dependencies: [
        "SusiCore", "SusiStore", "SusiJSON", "SusiCrypto", "SusiFiles", "SusiCommandLine",
        "SusiEventLog", "SusiPostgres", "SusiPostgresLog", "SusiServer", "SusiHTTPServer",
        "SusiOperatorLog", "SusiTLS",
      ]),

    // Frontends: thin layers that turn input into intents and events into output.
    frontend(
      "SusiText", folder: "Text",
      dependencies: [
        "SusiCore", "SusiStore", "SusiJSON", "SusiApplication", "SusiCommandLine", "SusiTerminal",
      ]),
    frontend(
      "SusiJSONLines", folder: "JSONLines",
      dependencies: [
        "SusiCore", "SusiStore", "SusiJSON", "SusiApplication", "SusiCommandLine", "SusiTerminal",
      ]),
    frontend(
      "SusiServe", folder: "Serve",
      dependencies: [
        "SusiCore", "SusiStore", "SusiJSON", "SusiHTTPServer", "SusiApplication",
        "SusiCommandLine", "SusiClock", "SusiHTTPClient", "SusiHTTPTypes", "SusiDelivery",
        "SusiAccess", "SusiTLS", "SusiOperatorLog", "SusiFiles", "SusiPostgresLog",
      ]),
    frontend(
      "SusiWeb", folder: "Web",
      dependencies: [
        "SusiServe", "SusiHTTPServer", "SusiCore", "SusiStore", "SusiRunner", "SusiCrypto",
        "SusiFiles", "SusiJSON", "SusiApplication", "SusiCommandLine", "SusiHTTPTypes",
        "SusiAccess", "SusiTerminal",
      ],
      exclude: ["Screenshots"], resources: [.copy("Resources")]),
    .executableTarget(
      name: "susi",
      dependencies: [
        "SusiText", "SusiJSONLines", "SusiServe", "SusiWeb", "SusiTools", "CEpoll",
        "SusiCommandLine",
      ],
      path: "Frontends/susi", swiftSettings: strict),

    // Testing: support linked by tests (and the benchmarks) only. A deterministic, realistic
    // event stream; a loopback HTTP client, threads for blocking waits and a scratch folder per
    // test process (nothing of susi's own); the reducer tester; and the runtime's helpers: a
    // scripted runner, a fake transport, a test clock, and the driver of the built binary.
    module("SusiSamples", in: "Testing", dependencies: ["SusiCore", "SusiJSON"]),
    module("SusiHTTPTesting", in: "Testing", dependencies: ["SusiHTTPTypes"]),
    // A certificate authority made at run time, for the TLS tests and benchmarks.
    module("SusiTLSTesting", in: "Testing", dependencies: ["COpenSSL"]),
    module("SusiCoreTesting", in: "Testing", dependencies: ["SusiCore", "SusiJSON"]),
    module(
      "SusiTesting", in: "Testing",
      dependencies: [
        "SusiCore", "SusiStore", "SusiRunner", "SusiClock", "SusiCoreTesting", "SusiFiles",
        "SusiHTTPClient", "SusiHTTPTesting", "SusiHTTPTypes",
      ]),
    // The property every logged record must have, checked for one input from outside (the
    // round-trip tests and the fuzz target in Sources/Fuzz run it).
    module(
      "SusiRoundTrip", in: "Testing",
      dependencies: ["SusiCore", "SusiEventLog", "SusiJSON", "SusiRunner", "SusiStore"]),
    // A second writer of an event log, for the tests that need one (or a crash mid-append).
    .executableTarget(
      name: "susi-log-child", dependencies: ["SusiCore", "SusiEventLog", "SusiSamples"],
      path: "Sources/Testing/SusiLogChild", swiftSettings: strict),

    // Tests: one target per module or frontend; those that run the built `susi` depend on it.
    .testTarget(
      name: "SusiJSONTests", dependencies: ["SusiJSON", "SusiCrypto"], swiftSettings: strict),
    .testTarget(name: "SusiCryptoTests", dependencies: ["SusiCrypto"], swiftSettings: strict),
    .testTarget(
      name: "SusiTLSTests", dependencies: ["SusiTLS", "SusiTLSTesting", "SusiHTTPTesting"],
      swiftSettings: strict),
    .testTarget(name: "SusiScriptTests", dependencies: ["SusiScript"], swiftSettings: strict),
    .testTarget(
      name: "SusiFilesTests", dependencies: ["SusiHTTPTesting", "SusiFiles"], swiftSettings: strict),
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
      dependencies: [
        "SusiHTTPTesting",
        "SusiEventLog", "SusiStore", "SusiTesting", "SusiCrypto", "SusiSamples", "susi-log-child",
        "SusiClock",
      ],
      swiftSettings: strict),
    .testTarget(
      name: "SusiStoreTests",
      dependencies: [
        "SusiHTTPTesting",
        "SusiStore", "SusiCore", "SusiTesting", "SusiEventLog", "SusiJSON", "SusiSamples",
        "SusiClock", "SusiCoreTesting", "SusiCrypto",
      ],
      swiftSettings: strict),
    .testTarget(
      name: "SusiRunnerTests",
      dependencies: [
        "SusiRunner", "SusiCore", "SusiTesting", "SusiServer", "SusiStore", "SusiHTTPServer",
        "SusiJSON", "SusiCrypto", "SusiEventLog", "SusiClock", "SusiHTTPClient", "SusiHTTPTypes",
        "SusiCoreTesting", "SusiTLS", "SusiTLSTesting", "SusiHTTPTesting",
      ],
      swiftSettings: strict),
    .testTarget(
      name: "SusiRoundTripTests",
      dependencies: [
        "SusiHTTPTesting", "SusiRoundTrip", "SusiCore", "SusiJSON", "SusiStore", "SusiEventLog",
      ],
      exclude: ["Inputs"], swiftSettings: strict),
    .testTarget(
      name: "SusiDeliveryTests",
      dependencies: [
        "SusiClock", "SusiCore", "SusiDelivery", "SusiHTTPClient", "SusiHTTPTypes", "SusiStore",
        "SusiTesting", "SusiHTTPTesting",
      ], swiftSettings: strict),
    .testTarget(
      name: "SusiHTTPServerTests",
      dependencies: [
        "SusiHTTPServer", "SusiCrypto", "SusiClock", "SusiHTTPTesting", "SusiHTTPTypes",
        "SusiTesting",
      ],
      swiftSettings: strict),
    .testTarget(
      name: "SusiOperatorLogTests",
      dependencies: ["SusiOperatorLog", "SusiHTTPServer", "SusiHTTPTypes", "SusiJSON"],
      swiftSettings: strict),
    .testTarget(
      name: "SusiServerTests",
      dependencies: [
        "SusiServer", "SusiHTTPServer", "SusiJSON", "SusiCrypto", "SusiFiles", "SusiClock",
        "SusiHTTPTesting", "SusiHTTPTypes", "SusiHTTPClient", "SusiScript",
      ],
      swiftSettings: strict),
    .testTarget(
      name: "SusiPostgresLogTests",
      dependencies: [
        "SusiPostgresLog", "SusiPostgres", "SusiStore", "SusiCore", "SusiCoreTesting",
        "SusiEventLog", "SusiClock", "SusiTesting", "SusiJSON", "SusiHTTPTesting", "susi",
        "SusiDelivery", "SusiHTTPClient", "SusiHTTPServer", "SusiAccess", "SusiHTTPTypes",
      ],
      swiftSettings: strict),
    .testTarget(
      name: "SusiAccessTests",
      dependencies: ["SusiAccess", "SusiTesting", "SusiClock", "SusiCore", "SusiStore"],
      swiftSettings: strict),
    .testTarget(
      name: "TextTests",
      dependencies: [
        "SusiText", "SusiCommandLine", "SusiCore", "SusiHTTPServer", "SusiHTTPTesting", "SusiJSON",
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
      name: "ServeTests",
      dependencies: [
        "SusiJSONLines", "SusiServe", "SusiTesting", "SusiFiles", "SusiApplication",
        "SusiCommandLine", "SusiCore", "SusiCrypto", "SusiEventLog", "SusiHTTPServer", "SusiJSON",
        "SusiRunner", "SusiStore", "SusiClock", "SusiHTTPClient", "SusiHTTPTesting",
        "SusiHTTPTypes", "SusiCoreTesting", "SusiDelivery", "SusiAccess", "susi", "SusiOperatorLog",
      ],
      swiftSettings: strict),
    .testTarget(
      name: "ReplayTests",
      dependencies: [
        "SusiHTTPTesting",
        "SusiApplication", "SusiCommandLine", "SusiCore", "SusiEventLog", "SusiJSON", "SusiStore",
        "SusiTesting", "SusiServer", "susi",
      ],
      swiftSettings: strict),
    .testTarget(
      name: "CommandLineTests",
      dependencies: [
        "SusiApplication", "SusiCommandLine", "SusiCore", "SusiFiles", "SusiHTTPTesting",
        "SusiStore", "SusiTesting", "SusiCoreTesting", "susi", "SusiJSON",
      ],
      swiftSettings: strict),
    .testTarget(
      name: "WebTests",
      dependencies: [
        "SusiWeb", "SusiServe", "SusiTesting", "SusiStore", "SusiCore", "SusiHTTPServer",
        "SusiJSON", "SusiCrypto", "SusiEventLog", "SusiApplication", "SusiCommandLine",
        "SusiHTTPTesting", "SusiHTTPTypes", "SusiServer", "SusiAccess", "susi",
      ],
      swiftSettings: strict),
  ]
)
