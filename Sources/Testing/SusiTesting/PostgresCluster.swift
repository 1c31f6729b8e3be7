import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A throw-away PostgreSQL cluster for the tests (and the benchmarks): `initdb` into a temporary
/// folder, `postgres` listening only on a Unix socket there (`listen_addresses=''`), trust
/// authentication for the user `susi`. When the tests run as root, the server runs as `nobody`
/// (PostgreSQL refuses to run as root). One cluster per test process, stopped and deleted when
/// the process exits; each test makes a database of its own with `database()`.
public final class PostgresCluster: Sendable {
  /// `initdb` from Debian's `postgresql` package (off the PATH, in /usr/lib/postgresql/*/bin).
  public static let program = OutsideProgram(
    variable: "SUSI_INITDB", names: ["initdb"], package: "postgresql",
    folders: binaryFolders)

  /// The folders Debian installs the server's programs in, newest version first.
  static var binaryFolders: [String] {
    let root = "/usr/lib/postgresql"
    let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
    return versions.sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }.map { "\(root)/\($0)/bin" }
  }

  /// Why the cluster could not be started.
  public struct Failure: Error, CustomStringConvertible {
    public var description: String
  }

  /// The folder holding the data, the socket and the server's log.
  public let folder: String
  /// The folder of the server's Unix socket.
  public var socketFolder: String { folder }
  private let binaries: String
  /// Whether the server loads `pg_stat_statements` (it does when the package ships it, as
  /// Debian's does): a database that runs `CREATE EXTENSION pg_stat_statements` can then count
  /// the statements a test makes.
  public let countsStatements: Bool
  private let counter = Atomic<Int>(0)
  private let creating = Mutex<Void>(())

  /// The cluster of this test process, started on first use.
  public static func shared() throws -> PostgresCluster {
    try sharedCluster.withLock { cluster in
      if let cluster { return cluster }
      let started = try PostgresCluster(durable: false)
      cluster = started
      atexit { PostgresCluster.stopShared() }
      return started
    }
  }

  private static let sharedCluster = Mutex<PostgresCluster?>(nil)

  private static func stopShared() {
    sharedCluster.withLock { cluster in
      cluster?.stop()
      cluster = nil
    }
  }

  /// Makes and starts a cluster. `durable` false turns `fsync` off (fast, for tests); true keeps
  /// PostgreSQL's defaults (for measurements).
  public init(durable: Bool) throws {
    guard let initdb = Self.program.path else {
      throw Failure(description: Self.program.skipNote)
    }
    // initdb may be a link on the PATH; its siblings live where it points.
    binaries =
      (URL(fileURLWithPath: initdb).resolvingSymlinksInPath().path as NSString)
      .deletingLastPathComponent
    countsStatements = FileManager.default.fileExists(
      atPath: binaries + "/../lib/pg_stat_statements.so")
    Self.removeAbandoned(binaries: binaries)
    folder = "/tmp/susi-pg-\(getpid())-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    if geteuid() == 0 {
      let nobody = getpwnam("nobody")
      guard let nobody else { throw Failure(description: "no user nobody to run PostgreSQL as") }
      chown(folder, nobody.pointee.pw_uid, nobody.pointee.pw_gid)
    }
    try run(
      "initdb",
      [
        "-D", folder + "/data", "-U", "susi", "-A", "trust", "--no-sync", "-E", "UTF8",
        "--locale=C",
      ]
    )
    var settings = "-c listen_addresses='' -k \(folder) -c max_connections=200"
    if countsStatements { settings += " -c shared_preload_libraries=pg_stat_statements" }
    if !durable { settings += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off" }
    try run(
      "pg_ctl",
      ["-D", folder + "/data", "-l", folder + "/server.log", "-w", "-o", settings, "start"])
  }

  /// Stops and deletes the clusters of test processes that ended without stopping theirs (a
  /// run that was killed): their folders are named after the process.
  private static func removeAbandoned(binaries: String) {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: "/tmp")) ?? []
    for name in names where name.hasPrefix("susi-pg-") {
      let parts = name.split(separator: "-")
      guard parts.count == 4, let owner = Int32(parts[2]), owner != getpid(),
        kill(owner, 0) != 0 && errno == ESRCH
      else { continue }
      let folder = "/tmp/" + name
      var command = [binaries + "/pg_ctl", "-D", folder + "/data", "-m", "immediate", "-w", "stop"]
      if geteuid() == 0 {
        command =
          ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
          + command
      }
      if let null = try? Spawn.nullDevice() {
        defer { close(null) }
        if let pid = try? Spawn.start(
          command[0], Array(command.dropFirst()), environment: ["PATH": "/usr/bin:/bin"],
          streams: [0: null, 1: null, 2: null])
        {
          _ = Spawn.waitForExit(pid)
        }
      }
      try? FileManager.default.removeItem(atPath: folder)
    }
  }

  /// Stops the server at once and deletes its folder.
  public func stop() {
    _ = try? run("pg_ctl", ["-D", folder + "/data", "-m", "immediate", "-w", "stop"])
    try? FileManager.default.removeItem(atPath: folder)
  }

  /// A libpq URI for `database`, over the socket, as the user `susi`.
  public func uri(_ database: String, extra: String = "") -> String {
    "postgresql:///\(database)?host=\(socketFolder)&user=susi" + extra
  }

  /// Makes a fresh, empty database and returns its name.
  public func database() throws -> String {
    let name = "test_\(getpid())_\(counter.add(1, ordering: .relaxed).newValue)"
    // One at a time: createdb copies template1, which must not be in use by another copy.
    try creating.withLock { _ -> Void in
      try run("createdb", ["-h", socketFolder, "-U", "susi", name], asServerUser: false)
    }
    return name
  }

  /// Runs one of the cluster's programs to its end; throws unless it succeeds.
  @discardableResult
  public func run(_ program: String, _ arguments: [String], asServerUser: Bool = true) throws
    -> String
  {
    var command = [binaries + "/" + program] + arguments
    if asServerUser && geteuid() == 0 {
      command =
        ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
        + command
    }
    let output = folder + "/command-\(UUID().uuidString.prefix(8)).out"
    _ = FileManager.default.createFile(atPath: output, contents: nil)
    let fd = open(output, O_WRONLY)
    defer { close(fd) }
    let null = try Spawn.nullDevice()
    defer { close(null) }
    let pid = try Spawn.start(
      command[0], Array(command.dropFirst()),
      environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"],
      streams: [0: null, 1: fd, 2: fd])
    let exit = Spawn.waitForExit(pid)
    let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    try? FileManager.default.removeItem(atPath: output)
    guard exit.status == 0 && !exit.signalled else {
      throw Failure(description: "\(program) failed (\(exit.status)): \(text)")
    }
    return text
  }
}
