import Foundation

/// The TCP sockets listening on `port` right now, by inode, from Linux's `/proc/net/tcp` and
/// `/proc/net/tcp6`.
///
/// A socket's inode names that one socket for as long as it exists, so a test can tell whether
/// its own listener is gone even when another test's server has taken the freed port since: a
/// connection attempt cannot tell the two apart.
public func listeningSocketInodes(port: Int) -> Set<UInt64> {
  var inodes: Set<UInt64> = []
  for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
    guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
    for line in text.split(separator: "\n").dropFirst() {
      // sl, local address:port (hex), remote address:port, state (0A: listening), ..., inode.
      let fields = line.split(separator: " ", omittingEmptySubsequences: true)
      guard fields.count > 9, fields[3] == "0A",
        let portText = fields[1].split(separator: ":").last,
        Int(portText, radix: 16) == port, let inode = UInt64(fields[9])
      else { continue }
      inodes.insert(inode)
    }
  }
  return inodes
}
