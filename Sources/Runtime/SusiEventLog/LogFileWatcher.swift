import Glibc
import Synchronization

/// Tells when a log file may have grown: inotify reports each write to the file at once, and a
/// slow fallback poll covers filesystems where inotify stays silent (network filesystems, a
/// write made from another machine). A thread of its own sleeps in `poll()` between the two, so
/// watching costs no CPU.
///
/// `changed` runs on that thread and must return quickly (schedule the work, do not do it).
/// Reports are looked at no more than once a millisecond: a burst of writes wakes the thread
/// about a thousand times a second, not once per write. When `changed` says a look found
/// nothing new (the writes were this process's own appends), the next look waits
/// `quietPause` instead: a process appending fast wakes its watcher a hundred times a second,
/// and another process's append is seen within that pause.
public final class LogFileWatcher: Sendable {
  /// How often each way woke the watcher, for tests and metrics.
  public struct Wakes: Sendable, Equatable {
    /// Woken by inotify.
    public var notified = 0
    /// Woken by the fallback poll.
    public var polled = 0
  }

  private let inotify: Int32
  private let wakeReader: Int32
  private let wakeWriter: Int32
  private let counts = Mutex(Wakes())
  private let stopped = Atomic<Bool>(false)
  private let finished = Mutex<Bool>(false)

  /// The pause after a look that found nothing new, in milliseconds.
  public static let quietPause: Int32 = 10

  /// Starts watching `path`. Without inotify (it failed to start) only the fallback poll runs.
  ///
  /// - Parameters:
  ///   - fallback: the time between two looks when nothing was reported (milliseconds).
  ///   - changed: called after each report or poll; returns whether the look found something
  ///     new (false: the next look waits `quietPause`).
  public init(path: String, fallback milliseconds: Int32, changed: @escaping @Sendable () -> Bool) {
    var fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
    if fd >= 0, inotify_add_watch(fd, path, UInt32(IN_MODIFY | IN_CLOSE_WRITE)) < 0 {
      Glibc.close(fd)
      fd = -1
    }
    inotify = fd
    var ends: [Int32] = [-1, -1]
    if pipe(&ends) == 0 {
      for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    } else {
      ends = [-1, -1]
    }
    wakeReader = ends[0]
    wakeWriter = ends[1]
    let thread = WatcherThread { [self] in run(fallback: milliseconds, changed: changed) }
    if !thread.start() { finished.withLock { $0 = true } }
  }

  /// True when inotify reports writes to the file (false: the fallback poll alone).
  public var isNotified: Bool { inotify >= 0 }

  /// How often each way has woken the watcher so far.
  public var wakes: Wakes { counts.withLock { $0 } }

  /// Stops the thread and waits for it.
  public func stop() {
    guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
    var one: UInt8 = 1
    _ = Glibc.write(wakeWriter, &one, 1)
    while !finished.withLock({ $0 }) { usleep(1000) }
    if inotify >= 0 { Glibc.close(inotify) }
    Glibc.close(wakeReader)
    Glibc.close(wakeWriter)
  }

  private func run(fallback milliseconds: Int32, changed: @Sendable () -> Bool) {
    defer { finished.withLock { $0 = true } }
    var descriptors = [
      pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0),
      pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
    ]
    var buffer = [UInt8](repeating: 0, count: 4096)
    while !stopped.load(ordering: .acquiring) {
      let ready = poll(&descriptors, descriptors[1].fd >= 0 ? 2 : 1, max(1, milliseconds))
      if stopped.load(ordering: .acquiring) || descriptors[0].revents != 0 { return }
      if ready < 0 {
        if errno == EINTR { continue }
        return
      }
      if ready > 0, descriptors[1].revents != 0 {
        // Drain every queued report: one look covers them all.
        while buffer.withUnsafeMutableBytes({ Glibc.read(inotify, $0.baseAddress, $0.count) }) > 0 {
        }
        counts.withLock { $0.notified += 1 }
        let found = changed()
        // At most one look per millisecond: inotify reports every write, this process's own
        // too, so a burst of appends would wake the thread once per record. Reports that come
        // during the pause are drained by the next look, which sees what they announced. A
        // look that found nothing new was woken by this process's own appends: the next one
        // waits longer (the stop request still ends the pause at once).
        if stopped.load(ordering: .acquiring) { return }
        _ = poll(&descriptors, 1, found ? 1 : Self.quietPause)
      } else {
        counts.withLock { $0.polled += 1 }
        _ = changed()
      }
    }
  }
}

/// A detached thread running one closure (Foundation-free).
private final class WatcherThread: Sendable {
  private let body: @Sendable () -> Void

  init(_ body: @escaping @Sendable () -> Void) { self.body = body }

  /// False when no thread could be made.
  func start() -> Bool {
    let box = Unmanaged.passRetained(self).toOpaque()
    var thread = pthread_t()
    let made = pthread_create(
      &thread, nil,
      { pointer in
        guard let pointer else { return nil }
        let watcher = Unmanaged<WatcherThread>.fromOpaque(pointer).takeRetainedValue()
        watcher.body()
        return nil
      }, box)
    guard made == 0 else {
      Unmanaged<WatcherThread>.fromOpaque(box).release()
      return false
    }
    pthread_detach(thread)
    return true
  }
}
