import SusiFrontendSupport
import SusiServer

/// `susi server`: the built-in SUSI-compatible server in the foreground.
enum ServerCommandSpec {
  static let spec = CommandSpec(
    name: "server", summary: "run the built-in SUSI-compatible server",
    usage: "server [--port N] [--host ADDR] [--data DIR] [--seed N] [--trusted-proxy ADDR]",
    discussion: """
      Serves the SUSI API (the same server susi starts inside itself when no --server is given)
      from skill files in the SUSI skill format, with accounts, ratings and settings kept under
      STATE-DIR/server — so 'susi --state-dir X' and 'susi server --state-dir X' share accounts.
      Prints its base URL on stdout once listening, then serves until Ctrl-C or SIGTERM. It binds
      127.0.0.1 unless --host says otherwise; --port 0 (the default) picks any free port.
      It also answers DuckDuckGo-format web searches at /duckduckgo/ and serves example pages
      for link previews at /pages/.
      """,
    examples: [
      "susi server --port 4000",
      "susi --server http://127.0.0.1:4000 ask hello    (from another terminal)",
    ],
    options: [
      OptionSpec(
        "--port", short: "-p", value: "N", help: "port to listen on; 0 = any free port (default 0)"),
      OptionSpec("--host", value: "ADDR", help: "address to bind (default 127.0.0.1)"),
      OptionSpec("--data", value: "DIR", help: "skill data folder (default: the bundled skills)"),
      OptionSpec("--seed", value: "N", help: "seed for answer choices, for reproducible answers"),
      OptionSpec(
        "--trusted-proxy", value: "ADDR",
        help: "reverse proxies (comma-separated) whose X-Real-IP/X-Forwarded-For name the client"),
    ])

  static let command = Command(spec) { invocation in
    var words: [String] = []
    for name in ["--port", "--host", "--data", "--seed", "--trusted-proxy"] {
      if let value = invocation.parsed.value(name) { words += [name, value] }
    }
    words += ["--state-dir", invocation.common.stateDirectory + "/server"]
    return await ServerCommand.run(arguments: words)
  }
}
