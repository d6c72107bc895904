import PKCore

/// What a ``TerminalProgressBar`` draws, and when: a value type with no clock, locks or output, fed the
/// progress values and the times it reads, returning what to write and whether to come back later.
///
/// On a terminal, a changed value is drawn at once unless the last drawing was less than `interval` ago; then it
/// is drawn when that interval is over (one pending drawing at most, always of the latest value). For output that
/// is not a terminal, a line is written each time the percentage reaches a further tenth, and at the end. The
/// finished value (or ``TerminalProgressBar/finish()``) is always drawn at once, and ends the bar.
struct TerminalProgressBarState {

    enum Action: Equatable {
        case none
        /// Write these bytes now.
        case write(String)
        /// Write these bytes now (maybe nothing), and call ``due(at:)`` at this time (seconds since the bar began).
        case writeAndComeBack(String, at: Double)
    }

    let isTerminal: Bool
    let interval: Double
    let line: ProgressLine
    var columns: Int

    private var latest: ProcedureProgress?
    /// What was drawn last (terminal), or the last tenth written (plain).
    private var drawn: String?
    private var tenthWritten = -1
    private var lastDrawAt: Double?
    private var comeBackAt: Double?
    private(set) var isEnded = false

    init(isTerminal: Bool, interval: Double, line: ProgressLine, columns: Int) {
        self.isTerminal = isTerminal
        self.interval = interval
        self.line = line
        self.columns = columns
    }

    /// A new value, at `now`.
    mutating func update(_ progress: ProcedureProgress, at now: Double) -> Action {
        guard !isEnded else { return .none }
        latest = progress
        if progress.isFinished { return end(at: now) }
        guard isTerminal else { return plainLineIfDue(progress) }
        // A time before the last drawing (an injected clock stepped back) does not hold drawing up: it is drawn
        // now, and the interval counts from there.
        if let lastDrawAt, now >= lastDrawAt, now - lastDrawAt < interval {
            guard comeBackAt == nil else { return .none }  // a drawing is pending: it will take the latest value
            let due = lastDrawAt + interval
            comeBackAt = due
            return .writeAndComeBack("", at: due)
        }
        return .write(draw(progress, at: now))
    }

    /// The pending drawing is due.
    mutating func due(at now: Double) -> Action {
        guard !isEnded, comeBackAt != nil else { return .none }
        comeBackAt = nil
        guard let latest else { return .none }
        return .write(draw(latest, at: now))
    }

    /// Draws the latest value one last time and ends the line.
    mutating func end(at now: Double) -> Action {
        guard !isEnded else { return .none }
        isEnded = true
        comeBackAt = nil
        let progress = latest ?? .notStarted
        guard isTerminal else {
            return .write(tenthWritten == 10 && progress.fractionCompleted >= 1 ? "" : line.plain(progress) + "\n")
        }
        return .write(draw(progress, at: now, force: true) + "\n")
    }

    /// The bytes that redraw the bar in place: back to the line's start, the line, then clear what is left of the
    /// old one. Empty when nothing changed.
    private mutating func draw(_ progress: ProcedureProgress, at now: Double, force: Bool = false) -> String {
        let text = line.bar(progress, columns: columns)
        guard force || text != drawn else { return "" }
        drawn = text
        lastDrawAt = now
        return "\r" + text + "\u{1B}[K"
    }

    private mutating func plainLineIfDue(_ progress: ProcedureProgress) -> Action {
        let tenth = Int((progress.fractionCompleted * 10).rounded(.down))
        // A queue that went idle and took more work starts afresh: so do the lines.
        if tenthWritten == 10, tenth < 10 { tenthWritten = -1 }
        guard tenth > tenthWritten else { return .none }
        tenthWritten = tenth
        return .write(line.plain(progress) + "\n")
    }
}
