import Dispatch
import Foundation
import Glibc

/// `susi server`: runs the embedded SUSI-compatible server in the foreground.
///
/// Prints exactly one line, the base URL, on stdout once listening; diagnostics go to stderr.
/// Runs until SIGINT or SIGTERM, then shuts down gracefully.
public enum ServerCommand {
  /// The help text, printed by `--help` and after a usage error.
  public static let usage = """
    usage: susi server [--port N] [--host ADDR] [--data DIR] [--state-dir DIR] [--seed N]
                       [--trusted-proxy ADDR[,ADDR…]]

    Runs the embedded SUSI-compatible server until interrupted (Ctrl-C or SIGTERM).
    Prints the base URL (http://127.0.0.1:PORT) on stdout once it is listening.

    options:
      --port N         port to listen on; 0 (the default) picks a free port
      --host ADDR      address to bind (default 127.0.0.1, loopback only)
      --data DIR       skill data folder: models/<model>/<group>/<language>/<skill>.txt
                       (default: the skills shipped with susi)
      --state-dir DIR  where accounts, tokens, ratings and chat memory are kept; several
                       servers may share it (changes are made under a lock)
                       (default: $XDG_STATE_HOME/susi/server or ~/.local/state/susi/server)
      --seed N         seed for answer alternatives, for reproducible answers
      --trusted-proxy ADDR[,ADDR…]
                       reverse proxies whose X-Real-IP / X-Forwarded-For name the client
                       (default none: the peer address is the client, headers are ignored)
      --help           show this help

    """

  /// Exit status for bad command-line usage (sysexits EX_USAGE).
  public static let usageError: Int32 = 64

  /// Parsed options.
  struct Options: Equatable {
    var port = 0
    var host = "127.0.0.1"
    var data: String?
    var stateDirectory: String?
    var seed: UInt64?
    var trustedProxies: Set<String> = []
    var help = false
  }

  /// A command-line mistake, with the message to print before the usage.
  struct UsageError: Error, Equatable {
    var message: String
  }

  /// Runs `susi server` with the arguments after `server`; returns the exit status.
  public static func run(arguments: [String]) async -> Int32 {
    await run(
      arguments: arguments, environment: ProcessInfo.processInfo.environment,
      output: { standardOutput($0) }, errors: { standardError($0) },
      until: waitForTerminationSignal)
  }

  /// The testable core: output sinks and the stop condition are injected.
  static func run(
    arguments: [String], environment: [String: String],
    output: @Sendable (String) -> Void, errors: @Sendable (String) -> Void,
    until stopRequested: () async -> Void,
    started: (EmbeddedServer) -> Void = { _ in }
  ) async -> Int32 {
    let options: Options
    do {
      options = try parse(arguments)
    } catch {
      errors("susi server: \(error.message)\n\n\(usage)")
      return usageError
    }
    if options.help {
      output(usage)
      return 0
    }
    let configuration = ServerConfiguration(
      host: options.host, port: options.port,
      dataDirectory: options.data.map { URL(fileURLWithPath: $0) },
      stateDirectory: options.stateDirectory.map { URL(fileURLWithPath: $0) }
        ?? ServerConfiguration.defaultStateDirectory(environment: environment),
      seed: options.seed, trustedProxies: options.trustedProxies)
    if let data = configuration.dataDirectory,
      !FileManager.default.fileExists(atPath: data.appendingPathComponent("models").path)
    {
      errors("susi server: \(data.path) has no models folder; no skills will be loaded\n")
    }
    let server: EmbeddedServer
    do {
      server = try await EmbeddedServer.start(configuration)
    } catch {
      errors("susi server: cannot start: \(error)\n")
      return 1
    }
    for warning in server.handler.loadWarnings { errors("susi server: warning: \(warning)\n") }
    errors(
      "susi server: \(server.handler.library.skills.count) skills loaded; state in \(configuration.stateDirectory?.path ?? "memory")\n"
    )
    output(server.baseURLString + "\n")
    started(server)
    await stopRequested()
    errors("susi server: shutting down\n")
    await server.stop()
    return 0
  }

  /// Reads the options; `--name value` and `--name=value` are both accepted.
  static func parse(_ arguments: [String]) throws(UsageError) -> Options {
    var options = Options()
    var index = 0
    func value(_ name: String, inline: String?) throws(UsageError) -> String {
      if let inline { return inline }
      index += 1
      guard index < arguments.count else { throw UsageError(message: "\(name) needs a value") }
      return arguments[index]
    }
    while index < arguments.count {
      let argument = arguments[index]
      let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
      let name = argument.hasPrefix("--") ? parts[0] : argument
      let inline = argument.hasPrefix("--") && parts.count == 2 ? parts[1] : nil
      switch name {
      case "--help", "-h":
        options.help = true
      case "--port":
        let text = try value(name, inline: inline)
        guard let port = Int(text), (0...65535).contains(port) else {
          throw UsageError(message: "--port must be a number from 0 to 65535, not '\(text)'")
        }
        options.port = port
      case "--host":
        let host = try value(name, inline: inline)
        guard !host.isEmpty else { throw UsageError(message: "--host needs an address") }
        options.host = host
      case "--data":
        options.data = try value(name, inline: inline)
      case "--state-dir":
        options.stateDirectory = try value(name, inline: inline)
      case "--seed":
        let text = try value(name, inline: inline)
        guard let seed = UInt64(text) else {
          throw UsageError(
            message: "--seed must be a whole number from 0 to 2^64-1, not '\(text)'")
        }
        options.seed = seed
      case "--trusted-proxy":
        let list = try value(name, inline: inline).split(
          separator: ",", omittingEmptySubsequences: false
        ).map { $0.trimmed }
        guard !list.isEmpty, !list.contains(where: \.isEmpty) else {
          throw UsageError(message: "--trusted-proxy needs addresses such as 127.0.0.1,::1")
        }
        options.trustedProxies.formUnion(list)
      default:
        throw UsageError(message: "unknown option '\(argument)'")
      }
      index += 1
    }
    return options
  }

  /// Returns when the process receives SIGINT or SIGTERM.
  static func waitForTerminationSignal() async {
    let stream = AsyncStream<Int32> { continuation in
      let queue = DispatchQueue(label: "susi.server.signals")
      var sources: [any DispatchSourceSignal] = []
      for number in [SIGINT, SIGTERM] {
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
        source.setEventHandler { continuation.yield(number) }
        source.resume()
        sources.append(source)
      }
      let watch = SignalWatch(sources)
      continuation.onTermination = { _ in watch.cancel() }
    }
    for await _ in stream { break }
  }

  private static func standardOutput(_ text: String) {
    FileHandle.standardOutput.write(Data(text.utf8))
  }

  private static func standardError(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
  }
}

/// Carries the signal sources into the stream's termination handler. Dispatch sources may be
/// cancelled from any thread, which is all this type does with them.
private final class SignalWatch: @unchecked Sendable {
  private let sources: [any DispatchSourceSignal]

  init(_ sources: [any DispatchSourceSignal]) { self.sources = sources }

  func cancel() {
    for source in sources { source.cancel() }
  }
}
