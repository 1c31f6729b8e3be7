import Dispatch
import Glibc
import SusiCore
import SusiJSON
import Synchronization

/// Reading a long snapshot body on several threads: most of it is the transcript, whose entries
/// are read independently of each other. The transcript is cut into runs of whole entries
/// (`State.transcriptRuns`), each run is read on a thread of its own (`State.readTranscriptRun`),
/// and the rest of the body, with `[]` in the transcript's place, on another
/// (`State.readSnapshot(_:transcriptOmittedAt:)`); the caller's thread is one of them.
///
/// The cuts are found by the bytes the writer puts there, without reading the text, so they are
/// checked by reading: every run must read as whole entries, and the rest must hold the state's
/// transcript exactly where the cut-out one began. Then the text read in pieces is the body read
/// whole (the pieces join back into it, and each was read the same way, as deep as it sits in
/// it), and the result is the one `Snapshot.readBody` gives. Anything else gives nil, and the body
/// is read whole.
enum SnapshotBodyRuns {
  /// Bodies shorter than this are read whole, on one thread.
  static let shortest = 64 << 10
  /// About how long one run is at least.
  static let runLength = 32 << 10

  /// Reads `body` in runs while `other` runs beside them, as one more job. Nil when the body is
  /// not cut into runs (short, or its transcript not found): nothing ran. The body read is nil
  /// when a run or the rest did not read.
  static func read<Other: Sendable>(
    _ body: ArraySlice<UInt8>, alongside other: @Sendable () -> Other
  ) -> (Other, Result<Recovered, any Error>?)? {
    guard body.count >= shortest else { return nil }
    let threads = max(1, min(4, sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    // Twice as many runs as threads: jobs of unequal length still end at about the same time.
    let parts = min(2 * threads, body.count / runLength)
    // Offsets in the body from its start (the slice's indices need not start at 0).
    guard parts > 1,
      let (array, runs) = body.withUnsafeBytes({ State.transcriptRuns(in: $0, parts: parts) })
    else { return nil }
    let start = body.startIndex
    var text: [UInt8] = []
    text.reserveCapacity(body.count - array.count + 2)
    text.append(contentsOf: body[..<(start + array.lowerBound)])
    text.append(contentsOf: Array("[]".utf8))
    text.append(contentsOf: body[(start + array.upperBound)...])
    let spliced = text

    let entries = Mutex<[Int: [ChatEntry]]>([:])
    let failed = Atomic<Bool>(false)
    let rest = Mutex<Recovered?>(nil)
    let otherValue = Mutex<Other?>(nil)
    // Job 0 runs `other`, job 1 the rest of the body, the others one run each.
    DispatchQueue.concurrentPerform(iterations: runs.count + 2) { job in
      switch job {
      case 0:
        let value = other()
        otherValue.withLock { $0 = value }
      case 1:
        do {
          let read = try spliced.withUnsafeBytes { bytes in
            var reader = JSONReader(bytes, maximumDepth: Nesting.readable)
            return try Snapshot.readBodyWithPullReader(&reader) { r throws in
              try State.readSnapshot(&r, transcriptOmittedAt: array.lowerBound)
            }
          }
          rest.withLock { $0 = read }
        } catch {
          failed.store(true, ordering: .relaxed)
        }
      default:
        let run = runs[job - 2]
        do {
          // The transcript is the body's third level: the body, the state, the array.
          let read = try body.withUnsafeBytes { bytes in
            try State.readTranscriptRun(
              UnsafeRawBufferPointer(rebasing: bytes[run]), depth: 3,
              maximumDepth: Nesting.readable)
          }
          entries.withLock { $0[job - 2] = read }
        } catch {
          failed.store(true, ordering: .relaxed)
        }
      }
    }
    guard let value = otherValue.withLock({ $0 }) else {
      preconditionFailure("concurrentPerform returned before every job ran")
    }
    guard !failed.load(ordering: .relaxed), var recovered = rest.withLock({ $0 }) else {
      return (value, nil)
    }
    let pieces = entries.withLock { $0 }
    var transcript: [ChatEntry] = []
    transcript.reserveCapacity(pieces.values.reduce(0) { $0 + $1.count })
    for index in runs.indices {
      guard let piece = pieces[index] else { return (value, nil) }
      transcript.append(contentsOf: piece)
    }
    recovered.state.transcript = transcript
    return (value, .success(recovered))
  }
}
