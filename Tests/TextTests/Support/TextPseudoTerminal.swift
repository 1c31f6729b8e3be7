import Foundation
import SusiTesting

#if canImport(Glibc)
  import Glibc
#endif

/// A pseudo-terminal for tests that need a program's output to go to "a terminal".
final class TextPseudoTerminal {
  let controller: Int32
  /// The terminal end to hand to the program.
  let device: FileHandle

  init?() {
    // posix_openpt and friends are not visible to Swift; /dev/ptmx with the Linux ioctls is what
    // they do underneath.
    let getNumber: UInt = 0x8004_5430  // TIOCGPTN
    let setLock: UInt = 0x4004_5431  // TIOCSPTLCK
    let controller = open("/dev/ptmx", O_RDWR | O_NOCTTY)
    guard controller >= 0 else { return nil }
    var number: Int32 = 0
    var unlock: Int32 = 0
    guard ioctl(controller, setLock, &unlock) == 0, ioctl(controller, getNumber, &number) == 0
    else {
      close(controller)
      return nil
    }
    let device = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
    guard device >= 0 else {
      close(controller)
      return nil
    }
    self.controller = controller
    self.device = FileHandle(fileDescriptor: device, closeOnDealloc: true)
  }

  /// Everything written to the terminal until the program closed it (or `timeout` seconds
  /// passed). Call after the program was started and `closeDevice()` was called, so the end is
  /// seen.
  func readAll(timeout: Double = 120) -> String {
    read(until: "\u{0}never\u{0}", timeout: timeout)
  }

  /// Reads until `marker` has appeared (or `timeout` seconds passed); returns what was read.
  func read(until marker: String, timeout: Double) -> String {
    var data = [UInt8]()
    var chunk = [UInt8](repeating: 0, count: 4096)
    let deadline = Date().addingTimeInterval(timeout)
    while !String(decoding: data, as: UTF8.self).contains(marker) {
      let left = deadline.timeIntervalSinceNow
      guard left > 0 else { break }
      var descriptor = pollfd(fd: controller, events: Int16(POLLIN), revents: 0)
      guard poll(&descriptor, 1, Int32(left * 1000)) == 1 else { break }
      let count = chunk.withUnsafeMutableBytes { Glibc.read(controller, $0.baseAddress, $0.count) }
      if count <= 0 { break }
      data.append(contentsOf: chunk[0..<count])
    }
    return String(decoding: data, as: UTF8.self)
  }

  /// Types `text` on the terminal's keyboard.
  func type(_ text: String) {
    var bytes = Array(text.utf8)
    _ = write(controller, &bytes, bytes.count)
  }

  /// Runs the program at `path` with its output (and, when `typing`, its input) on a new
  /// terminal; for each step waits until `until` appears, then types `type`. Returns everything
  /// the terminal showed and the exit status. Blocks: call it off the cooperative pool.
  static func run(
    _ path: String, _ arguments: [String], environment: [String: String], typing: Bool,
    steps: [(until: String, type: String)] = [], afterExit: ((TextPseudoTerminal) -> Void)? = nil
  ) throws -> (output: String, status: Int32) {
    guard let terminal = TextPseudoTerminal() else { throw TerminalUnavailable() }
    let process = try terminal.start(path, arguments, environment: environment, typing: typing)
    var output = ""
    for step in steps {
      output += terminal.read(until: step.until, timeout: 120)
      terminal.type(step.type)
    }
    output += terminal.readAll(timeout: 120)
    let ended = process.waitForExit(timeout: 120)
    afterExit?(terminal)
    return (output, ended.status)
  }

  /// Starts the program at `path` with its output (and, when `typing`, its input) on this
  /// terminal.
  func start(_ path: String, _ arguments: [String], environment: [String: String], typing: Bool)
    throws -> SusiProcess
  {
    let process = try SusiBinary(path: path).start(
      arguments, environment: environment, streams: .terminal(device, keyboard: typing))
    closeDevice()
    return process
  }

  struct TerminalUnavailable: Error {}

  func closeDevice() { try? device.close() }

  /// The terminal's local modes (`c_lflag`) as the program left them.
  var localModes: tcflag_t {
    var settings = termios()
    _ = tcgetattr(controller, &settings)
    return settings.c_lflag
  }

  deinit { close(controller) }
}
