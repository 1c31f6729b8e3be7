public import SusiCommandLine
import SusiCore
import SusiJSON
public import SusiStore
import Synchronization

/// The JSON-lines frontend: intents in, one per line; every event the store logs out, as its
/// exact log line; one error line for each line that is refused.
///
/// ```
/// let session = JSONLinesSession(store: store, input: FileDescriptorInput.standardInput,
///                                output: FileDescriptorOutput.standardOutput)
/// let summary = await session.run()
/// ```
///
/// Input is read on a thread of its own; decoded lines are sent to the store a read's worth at a
/// time, in input order. Output goes through one writer, so an answer never interleaves with
/// another mid-line, events appear in seq order (a result always after its cause), and a line's
/// error appears after the events of the lines before it.
public final class JSONLinesSession: Sendable {
  private let store: Store
  private let input: any JSONLinesInput
  private let output: any JSONLinesOutput
  private let options: JSONLinesOptions
  private let diagnostics: @Sendable (String) -> Void
  private let pump = InputPump()
  private let stopRequested = Atomic<Bool>(false)
  private let startupEvents: [PublishedEvent]

  /// - Parameters:
  ///   - startupEvents: what start-up logged before the session (requests of a previous run
  ///     closed as `interrupted`, …); written first, since every logged event goes to stdout.
  ///   - diagnostics: where messages for a person go (stderr); never stdout.
  public init(
    store: Store, input: any JSONLinesInput, output: any JSONLinesOutput,
    options: JSONLinesOptions = JSONLinesOptions(), startupEvents: [PublishedEvent] = [],
    diagnostics: @escaping @Sendable (String) -> Void = {
      StandardStream.error.line("susi jsonl: \($0)")
    }
  ) {
    self.store = store
    self.input = input
    self.output = output
    self.options = options
    self.startupEvents = startupEvents
    self.diagnostics = diagnostics
  }

  /// Asks the session to stop taking input (SIGTERM): the line being handled finishes, requests
  /// in flight are drained as at the end of input, and `run` returns.
  public func stop() {
    stopRequested.store(true, ordering: .relaxed)
    pump.cancel()
  }

  /// Runs until the input ends (or `stop`, or stdout closes), drains, and reports what happened.
  /// The caller closes the store afterwards.
  ///
  /// Runs where the runner's effects run (the HTTP client's event loop), when they prefer one
  /// thread: a line's intent, its request, the reply and its result then all go through one
  /// thread, and the store is never handed between two.
  public func run() async -> JSONLinesSummary {
    guard let executor = store.preferredTaskExecutor else { return await serve() }
    return await withTaskExecutorPreference(executor) { await self.serve() }
  }

  private func serve() async -> JSONLinesSummary {
    // Every event goes to the ordered writer as it is logged.
    let output = output
    let (state, firstSeq, writer, forwarding) = await store.startForwarding(
      // When nobody reads the output any more, stop waiting for input that cannot be answered.
      makeWriter: { [pump] seq in OrderedOutput(output: output, seq: seq) { _ in pump.cancel() } },
      forward: { writer, events in writer.events(events) })
    // Logged before the writer existed, so written here, ahead of the state that includes them.
    for event in startupEvents where event.seq <= firstSeq { writer.line(event.line) }
    if options.replayFirst { writer.line(Self.stateLine(state, seq: firstSeq)) }
    pump.start(
      LineReader(input: input, maximumLineLength: options.maximumLineLength),
      allowsAdministration: options.allowsAdministration)

    var summary = JSONLinesSummary()
    var progress = Progress(lastAccepted: firstSeq)
    reading: while !stopRequested.load(ordering: .relaxed) {
      switch await pump.next() {
      case .lines(let lines):
        progress = await handle(lines, store: store, writer: writer, progress: progress)
      case .end:
        break reading
      case .failed(let error):
        diagnostics("\(error)")
        summary.inputFailure = error
        break reading
      }
      if writer.outputFailure != nil { break reading }
    }
    pump.cancel()
    if let failure = writer.outputFailure {
      diagnostics("\(failure); nobody reads the output, so no more input is taken")
    }
    summary.stopped = stopRequested.load(ordering: .relaxed)

    if options.waitForEffects {
      // The answers this run's requests are owed now. Planned answers (a reminder) stay in the
      // log: whichever susi runs when one is due delivers it, or the next one started after.
      summary.drained = await store.drainAnswersNow(timeout: options.drainTimeout)
      if !summary.drained {
        diagnostics(
          "requests still in flight after \(options.drainTimeout) s (--drain-timeout); not waiting any longer"
        )
      }
    }
    await writer.waitUntilQueued(await store.lastSeq)
    forwarding.stop()
    await writer.close()
    summary.outputFailure = writer.outputFailure
    summary.accepted = progress.accepted
    summary.refused = progress.refused
    summary.logFailure = progress.logFailure
    return summary
  }

  /// Counts carried from one read to the next.
  struct Progress: Sendable {
    /// The seq of the last event this input sent; later error lines go out after it.
    var lastAccepted: Int
    var accepted = 0
    var refused = 0
    var logFailure: String?
  }

  /// Sends a read's worth of lines while holding the store, so a batch costs one hop to the
  /// store, not one per line. The intents of consecutive lines go together (`Store.sendBatch`:
  /// one turn of the store and one write to the log), as many as the store has room for.
  /// Awaiting room for output lets the store serve results meanwhile.
  private func handle(
    _ lines: [DecodedLine], store: isolated Store, writer: OrderedOutput, progress: Progress
  ) async -> Progress {
    var progress = progress
    var index = lines.startIndex
    while index < lines.endIndex {
      if stopRequested.load(ordering: .relaxed) { break }
      await writer.waitForRoom(acceptedThrough: progress.lastAccepted)
      switch lines[index] {
      case .blank:
        index += 1
      case .refused(let error):
        index += 1
        progress.refused += 1
        writer.error(error.encoded(), after: progress.lastAccepted)
      case .intent:
        // Backpressure: while the runner has all the work it may queue, stop taking input.
        await store.waitForRoom()
        var intents: [BatchedIntent] = []
        var numbers: [Int] = []
        while index < lines.endIndex, intents.count < max(1, store.room),
          case .intent(let action, let id, let number) = lines[index]
        {
          intents.append(BatchedIntent(action: action, origin: options.origin, id: id))
          numbers.append(number)
          index += 1
        }
        let results = await store.sendBatch(intents, admit: { _ in true })
        for (offset, result) in results.enumerated() {
          switch result {
          case .success(let published):
            progress.lastAccepted = published.seq
            progress.accepted += 1
          case .failure(let refusal):
            let error: any Error =
              switch refusal {
              case .store(let error): error
              case .refused: StoreError.logFailed("the intent was refused")
              }
            progress.refused += 1
            if progress.logFailure == nil {
              progress.logFailure = "\(error)"
              diagnostics("\(error)")
            }
            let refusal = JSONLinesError(
              .logFailed, "\(error)", id: intents[offset].id, line: numbers[offset])
            writer.error(refusal.encoded(), after: progress.lastAccepted)
          }
        }
      }
    }
    return progress
  }

  /// `{"state":{…},"seq":N}`: the state as of event N, for `--replay-first`.
  static func stateLine(_ state: State, seq: Int) -> [UInt8] {
    var w = JSONWriter(capacity: 4096)
    w.object { o in
      o.field("state") { $0.bytes.append(contentsOf: state.canonicalJSON()) }
      o.field("seq", seq)
    }
    return w.bytes
  }
}

/// What a session did, for the exit code and for tests.
public struct JSONLinesSummary: Sendable, Equatable {
  /// Lines sent to the store.
  public var accepted = 0
  /// Lines answered with an error line.
  public var refused = 0
  /// Whether every request in flight finished before the drain timeout (true when not waiting).
  public var drained = true
  /// Whether the session ended because `stop` was called.
  public var stopped = false
  /// Why input stopped early, if it did.
  public var inputFailure: JSONLinesIOError?
  /// Why output stopped, if it did (the reader went away).
  public var outputFailure: JSONLinesIOError?
  /// The first refusal of the event log, if any.
  public var logFailure: String?

  public init() {}

  /// Whether the session ended cleanly: input read to its end (or stopped), every answer
  /// written, every action recorded.
  public var succeeded: Bool { inputFailure == nil && outputFailure == nil && logFailure == nil }
}
