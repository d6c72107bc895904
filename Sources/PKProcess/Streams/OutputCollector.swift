import Foundation

/// What the supervising thread does with one output stream read through a pipe: capture it (bounded), split it
/// into lines for a block or the log, and keep the tail of standard error for errors. Confined to that thread.
struct OutputCollector {
    private let reading: ProcessOutputDestination.Reading
    private let isStandardError: Bool
    private let log: @Sendable (String) -> Void

    /// What was captured, at most the capture limit.
    private(set) var captured = Data()
    /// Bytes read beyond the capture limit, and dropped.
    private(set) var droppedBytes = 0
    /// The last bytes of standard error, at most ``ProcessOutputDestination/standardErrorTailLimit`` (twice that
    /// between trims).
    private var tail: [UInt8] = []
    /// Whether the tail lost its beginning.
    private var tailIsCut = false
    /// A line not ended yet.
    private var partialLine: [UInt8] = []

    /// A collector for standard output or error; `log` writes one line to the procedure's log.
    init(reading: ProcessOutputDestination.Reading, isStandardError: Bool, log: @escaping @Sendable (String) -> Void) {
        self.reading = reading
        self.isStandardError = isStandardError
        self.log = log
    }

    /// The capture limit, when the stream is captured.
    var captureLimit: Int? { reading.captureLimit }

    private var splitsLines: Bool { reading.lineHandler != nil || reading.logsLines }

    /// Takes `bytes` just read.
    mutating func consume(_ bytes: UnsafeBufferPointer<UInt8>) {
        if let limit = reading.captureLimit {
            let room = max(0, limit - captured.count)
            let kept = min(room, bytes.count)
            if kept > 0 { captured.append(bytes.baseAddress!, count: kept) }
            droppedBytes += bytes.count - kept
        }
        if isStandardError {
            let limit = ProcessOutputDestination.standardErrorTailLimit
            tail.append(contentsOf: bytes.suffix(limit))
            if bytes.count > limit { tailIsCut = true }
            if tail.count > 2 * limit {
                tail.removeFirst(tail.count - limit)
                tailIsCut = true
            }
        }
        guard splitsLines else { return }
        var start = bytes.startIndex
        while let newline = bytes[start...].firstIndex(of: 0x0A) {
            partialLine.append(contentsOf: bytes[start..<newline])
            deliverLongPieces()
            deliverPartialLine()
            start = newline + 1
        }
        partialLine.append(contentsOf: bytes[start...])
        deliverLongPieces()
    }

    /// Hands over the beginning of a line longer than the maximum, a piece of the maximum at a time.
    private mutating func deliverLongPieces() {
        let maximum = ProcessOutputDestination.maximumLineLength
        // A line of exactly the maximum followed by `\r` waits for what comes next: with `\n`, it is one line.
        while partialLine.count > maximum, !(partialLine.count == maximum + 1 && partialLine.last == 0x0D) {
            deliver(partialLine.prefix(maximum))
            partialLine.removeFirst(maximum)
        }
    }

    /// The stream ended: hands over the last unterminated line.
    mutating func finish() {
        if splitsLines, !partialLine.isEmpty { deliverPartialLine() }
    }

    /// The last lines of standard error, for an error's description; `nil` for standard output.
    var standardErrorTail: String? {
        guard isStandardError else { return nil }
        var bytes = tail.suffix(ProcessOutputDestination.standardErrorTailLimit)
        // Start at a line when the cut fell inside one, unless that leaves nothing.
        if tailIsCut || tail.count > bytes.count, let newline = bytes.firstIndex(of: 0x0A),
            newline + 1 < bytes.endIndex
        {
            bytes = bytes[(newline + 1)...]
        }
        var text = String(decoding: bytes, as: UTF8.self)
        while let last = text.last, last.isNewline { text.removeLast() }
        return text
    }

    private mutating func deliverPartialLine() {
        var line = partialLine[...]
        if line.last == 0x0D { line = line.dropLast() }
        deliver(line)
        partialLine.removeAll(keepingCapacity: true)
    }

    private func deliver(_ bytes: some Collection<UInt8>) {
        let line = String(decoding: bytes, as: UTF8.self)
        reading.lineHandler?(line)
        if reading.logsLines { log(line) }
    }
}
