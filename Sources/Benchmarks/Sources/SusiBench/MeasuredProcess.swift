import CEpoll
import Foundation
import Glibc

/// Runs a program to its end with stdin and stdout from/to files, and reports what it cost:
/// wall time, CPU time (user + system) and peak RSS, read from `wait4` (so only that process's).
///
/// Linux starts a new program's peak RSS at the RSS of the process that spawned it (the kernel
/// carries the old memory's high-water mark across `exec`), so a child smaller than this
/// benchmark would show this benchmark's peak. Before each spawn the benchmark resets its own
/// high-water mark to its current RSS (`/proc/self/clear_refs`); `floorKilobytes` is that RSS,
/// and a peak at that floor is reported as "at most".
struct MeasuredRun {
  var status: Int32
  var wall: Double
  var cpu: Double
  /// Peak resident set size, in KiB.
  var peakKilobytes: Int
  /// This benchmark's own RSS when it spawned the program: the lowest peak it can see.
  var floorKilobytes = 0

  var summary: String {
    let atMost = peakKilobytes <= floorKilobytes + 1024 ? "at most " : ""
    return String(format: "%.3f s wall, %.3f s CPU, peak RSS ", wall, cpu)
      + "\(atMost)\(peakKilobytes / 1024) MB"
  }

  /// Resets this process's high-water mark to its current RSS; returns that RSS in KiB.
  private static func lowerOwnFloor() -> Int {
    if let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") {
      try? handle.write(contentsOf: Data("5".utf8))
      try? handle.close()
    }
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
    else { return 0 }
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
  }

  /// Runs `arguments[0]` with the rest as its arguments.
  static func run(
    _ arguments: [String], stdin: String = "/dev/null", stdout: String = "/dev/null",
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> MeasuredRun {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, stdin, O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv = arguments.map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      for p in argv { free(p) }
      for p in envp { free(p) }
    }
    let floor = lowerOwnFloor()
    var pid: pid_t = 0
    let started = ContinuousClock.now
    guard posix_spawn(&pid, arguments[0], &actions, nil, argv, envp) == 0 else {
      return MeasuredRun(status: -1, wall: 0, cpu: 0, peakKilobytes: 0)
    }
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
    let elapsed = ContinuousClock.now - started
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return MeasuredRun(
      status: status,
      wall: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
      cpu: seconds(usage.ru_utime) + seconds(usage.ru_stime), peakKilobytes: usage.ru_maxrss,
      floorKilobytes: floor)
  }

  /// The fastest of `times` runs (by wall time), and the largest peak RSS among them.
  static func best(of times: Int, _ body: () -> MeasuredRun) -> MeasuredRun {
    var runs = (0..<times).map { _ in body() }
    runs.sort { $0.wall < $1.wall }
    var best = runs[0]
    best.peakKilobytes = runs.map(\.peakKilobytes).max() ?? 0
    best.floorKilobytes = runs.map(\.floorKilobytes).max() ?? 0
    return best
  }
}
