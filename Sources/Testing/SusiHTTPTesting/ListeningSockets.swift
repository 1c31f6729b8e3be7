#if canImport(Glibc)
  import Glibc
#endif

/// The TCP sockets listening on `port` right now, by inode, from Linux's `/proc/net/tcp` and
/// `/proc/net/tcp6`.
///
/// A socket's inode names that one socket for as long as it exists, so a test can tell whether
/// its own listener is gone even when another test's server has taken the freed port since: a
/// connection attempt cannot tell the two apart.
///
/// The kernel hands those tables out a page at a time, and a socket can be missed when others
/// open and close between two pages; so they are read three times, and what any reading saw
/// counts. An inode that does not exist is never seen.
public func listeningSocketInodes(port: Int) -> Set<UInt64> {
  var inodes: Set<UInt64> = []
  for _ in 0..<3 {
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
      for line in readToEnd(table).split(separator: "\n").dropFirst() {
        // sl, local address:port (hex), remote address:port, state (0A: listening), ..., inode.
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count > 9, fields[3] == "0A",
          let portText = fields[1].split(separator: ":").last,
          Int(portText, radix: 16) == port, let inode = UInt64(fields[9])
        else { continue }
        inodes.insert(inode)
      }
    }
  }
  return inodes
}

/// A `/proc` file's whole text. Read until the end: each read gives at most a page, which a
/// reader that takes a short read for the end (as Foundation's does) stops at.
private func readToEnd(_ path: String) -> String {
  let fd = open(path, O_RDONLY | O_CLOEXEC)
  guard fd >= 0 else { return "" }
  defer { close(fd) }
  var bytes: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 64 * 1024)
  while true {
    let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    if n < 0 && errno == EINTR { continue }
    guard n > 0 else { break }
    bytes += chunk[..<n]
  }
  return String(decoding: bytes, as: UTF8.self)
}
