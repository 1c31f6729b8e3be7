import CChecksum

/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum every version 2 log line
/// carries.
///
/// Computed by the processor's `crc32` instruction where it has one (x86-64 with SSE 4.2: eight
/// bytes per step), else in software by slicing: sixteen 256-entry tables let each step fold
/// sixteen input bytes with sixteen independent table look-ups instead of a chain of one look-up
/// per byte. Both give the same checksum.
public enum CRC32C {
  /// Whether `checksum` uses the processor's instruction.
  public static let usesHardware = susi_crc32c_hardware_available() != 0

  /// The checksum of `bytes`, continuing from `crc` (the checksum of the bytes before them, or 0).
  public static func checksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32
  {
    guard let base = bytes.baseAddress, !bytes.isEmpty else { return crc }
    if usesHardware { return ~susi_crc32c_hardware_update(~crc, base, bytes.count) }
    return softwareChecksum(bytes, continuing: crc)
  }

  /// The checksum of `bytes` computed by the tables, whatever the processor has (for tests that
  /// compare the two ways).
  public static func softwareChecksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0)
    -> UInt32
  {
    guard let base = bytes.baseAddress, !bytes.isEmpty else { return crc }
    return tables.withUnsafeBufferPointer { table in
      update(~crc, base, bytes.count, table.baseAddress.unsafelyUnwrapped) ^ 0xFFFF_FFFF
    }
  }

  /// The checksum of `bytes`, continuing from `crc`.
  public static func checksum(_ bytes: some Sequence<UInt8>, continuing crc: UInt32 = 0) -> UInt32 {
    if let result = bytes.withContiguousStorageIfAvailable({ buffer in
      checksum(UnsafeRawBufferPointer(buffer), continuing: crc)
    }) {
      return result
    }
    return checksum(Array(bytes), continuing: crc)
  }

  /// Folds `count` bytes at `start` into the running (inverted) register `crc`.
  @inline(__always)
  private static func update(
    _ crc: UInt32, _ start: UnsafeRawPointer, _ count: Int, _ table: UnsafePointer<UInt32>
  ) -> UInt32 {
    var crc = crc
    var p = start
    var remaining = count
    while remaining >= 16 {
      let first = UInt64(littleEndian: p.loadUnaligned(as: UInt64.self))
      let second = UInt64(littleEndian: (p + 8).loadUnaligned(as: UInt64.self))
      let b = UInt32(truncatingIfNeeded: first &>> 32)
      let c = UInt32(truncatingIfNeeded: second)
      let d = UInt32(truncatingIfNeeded: second &>> 32)
      // Twelve of the sixteen look-ups do not depend on the running register: they are combined
      // in a tree while the register's own four wait, so that each step's chain of dependent
      // instructions is a look-up and three XORs rather than sixteen XORs in a row.
      let fromB =
        (lookUp(table, 11, b) ^ lookUp(table, 10, b &>> 8))
        ^ (lookUp(table, 9, b &>> 16) ^ lookUp(table, 8, b &>> 24))
      let fromC =
        (lookUp(table, 7, c) ^ lookUp(table, 6, c &>> 8))
        ^ (lookUp(table, 5, c &>> 16) ^ lookUp(table, 4, c &>> 24))
      let fromD =
        (lookUp(table, 3, d) ^ lookUp(table, 2, d &>> 8))
        ^ (lookUp(table, 1, d &>> 16) ^ lookUp(table, 0, d &>> 24))
      let a = UInt32(truncatingIfNeeded: first) ^ crc
      crc =
        (fromB ^ (fromC ^ fromD))
        ^ ((lookUp(table, 15, a) ^ lookUp(table, 14, a &>> 8))
          ^ (lookUp(table, 13, a &>> 16) ^ lookUp(table, 12, a &>> 24)))
      p += 16
      remaining &-= 16
    }
    while remaining >= 8 {
      let word = UInt64(littleEndian: p.loadUnaligned(as: UInt64.self))
      let a = UInt32(truncatingIfNeeded: word) ^ crc
      let b = UInt32(truncatingIfNeeded: word &>> 32)
      crc =
        lookUp(table, 7, a) ^ lookUp(table, 6, a &>> 8) ^ lookUp(table, 5, a &>> 16)
        ^ lookUp(table, 4, a &>> 24) ^ lookUp(table, 3, b) ^ lookUp(table, 2, b &>> 8)
        ^ lookUp(table, 1, b &>> 16) ^ lookUp(table, 0, b &>> 24)
      p += 8
      remaining &-= 8
    }
    while remaining > 0 {
      let byte = p.load(as: UInt8.self)
      crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc &>> 8)
      p += 1
      remaining &-= 1
    }
    return crc
  }

  /// Entry `byte & 0xFF` of table `slice`.
  @inline(__always)
  private static func lookUp(_ table: UnsafePointer<UInt32>, _ slice: Int, _ byte: UInt32) -> UInt32
  {
    table[slice &* 256 &+ Int(byte & 0xFF)]
  }

  /// Sixteen tables of 256 entries, one after the other: table k advances a byte through k more
  /// zero bytes than table 0.
  private static let tables: [UInt32] = {
    var tables = [UInt32](repeating: 0, count: 16 * 256)
    for index in 0..<256 {
      var crc = UInt32(index)
      for _ in 0..<8 { crc = (crc & 1) == 1 ? (crc &>> 1) ^ 0x82F6_3B78 : crc &>> 1 }
      tables[index] = crc
    }
    for slice in 1..<16 {
      for index in 0..<256 {
        let previous = tables[(slice - 1) * 256 + index]
        tables[slice * 256 + index] = (previous &>> 8) ^ tables[Int(previous & 0xFF)]
      }
    }
    return tables
  }()
}
