import Foundation
import PKCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A progress bar for command-line tools, following a ``/PKCore/ProgressMonitor`` (a procedure, a group or a queue).
///
/// ```swift
/// let bar = TerminalProgressBar(monitoring: ProgressMonitor(queue), title: "Resizing")
/// queue.add(procedures: work)
/// await queue.allOperationsFinished()
/// bar.finish()   // a procedure's or group's bar finishes by itself
/// ```
///
/// On a terminal it redraws one line in place (`\r`, the line, then "erase to end of line"), at most once per
/// `minimumInterval` (the latest value is drawn when the interval is over), only when the text changed, and cut to
/// the terminal's width, so it neither flickers nor scrolls. Otherwise (output into a file, a pipe, a CI log) it
/// writes a plain line each time the percentage reaches a further tenth, and one at the end. The bar ends (with a
/// newline) when the watched procedure finishes, or at ``finish()``; nothing is written after that.
///
/// Each drawing is one `write(2)` to `fileDescriptor` (standard error by default, so it does not mix with a tool's
/// output), made under the bar's lock so drawings never interleave; the bar never stops the monitor (other handlers
/// and streams on it go on). Drawing is best effort: a write that fails is dropped, and, as for any write, one to a
/// pipe whose reader has gone raises `SIGPIPE` unless the program ignores it (`signal(SIGPIPE, SIG_IGN)`, usual in
/// tools whose output may be cut short). Widths are counted in characters, which is exact for text that is one
/// column per character. Control characters in the title and in messages (C0, DEL and C1, which includes the
/// one-character CSI U+009B) are shown as spaces, so progress text taken from user data cannot drive the terminal.
/// Time is measured on the monotonic clock, so a wall clock stepped back does not hold drawing up. Thread-safe.
public final class TerminalProgressBar: Sendable {
    private let fileDescriptor: Int32
    private let monitor: ProgressMonitor
    private let time: ElapsedTime
    /// Schedules the pending drawing; its delays are counted on the monotonic clock unless a clock was injected.
    private let clock: any ProcedureClock
    private let state: PKMutex<TerminalProgressBarState>

    /// Starts drawing `monitor`'s progress.
    ///
    /// - Parameters:
    ///   - monitor: What to follow; the bar keeps it.
    ///   - title: Written before the bar; control characters in it are shown as spaces, as in messages.
    ///   - fileDescriptor: Where to draw; standard error by default. Whether it is a terminal decides the style.
    ///   - barWidth: The bar's width in characters.
    ///   - minimumInterval: The shortest time between two drawings on a terminal.
    ///   - clock: Where time comes from; PKTesting's `ManualClock` in tests. By default (`nil`) the bar measures
    ///     time on the system's monotonic clock, so a wall clock stepped back (NTP, a user's `date -s`) cannot
    ///     freeze it; an injected clock that steps back makes the bar draw at once.
    public init(
        monitoring monitor: ProgressMonitor, title: String = "", fileDescriptor: Int32 = STDERR_FILENO,
        barWidth: Int = 30, minimumInterval: Duration = .milliseconds(100), clock: (any ProcedureClock)? = nil
    ) {
        self.fileDescriptor = fileDescriptor
        self.monitor = monitor
        self.clock = clock ?? SystemClock()
        time = ElapsedTime(clock: clock)
        let isTerminal = isatty(fileDescriptor) == 1
        state = PKMutex(
            TerminalProgressBarState(
                isTerminal: isTerminal, interval: max(0, minimumInterval.timeInterval),
                line: ProgressLine(title: title, barWidth: min(max(1, barWidth), 500)),
                columns: isTerminal ? Self.columns(of: fileDescriptor) : Int.max))
        monitor.addHandler { [weak self] progress in self?.update(progress) }
    }

    /// Draws the last value and ends the line, if the bar has not ended yet. For a queue, whose progress never
    /// finishes, call it when the work is done.
    public func finish() {
        let now = time.seconds()
        state.withLock { state in write(state.end(at: now)) }
    }

    /// `true` once the bar has ended.
    public var isFinished: Bool { state.withLock { $0.isEnded } }

    private func update(_ progress: ProcedureProgress) {
        let now = time.seconds()
        let comeBack = state.withLock { state -> Double? in
            let action = state.update(progress, at: now)
            write(action)
            if case .writeAndComeBack(_, let at) = action { return at }
            return nil
        }
        if let comeBack {
            _ = clock.schedule(after: .seconds(max(0, comeBack - now))) { [weak self] in self?.due() }
        }
    }

    private func due() {
        let now = time.seconds()
        state.withLock { state in write(state.due(at: now)) }
    }

    /// Writes what `action` says; called under the lock, so that drawings never interleave.
    private func write(_ action: TerminalProgressBarState.Action) {
        let text: String
        switch action {
        case .none: return
        case .write(let bytes), .writeAndComeBack(let bytes, _): text = bytes
        }
        guard !text.isEmpty else { return }
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                Foundation.write(fileDescriptor, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }  // a closed or broken output: drawing is best effort
            offset += written
        }
    }

    /// The terminal's width in columns; 80 when it cannot be read.
    private static func columns(of fileDescriptor: Int32) -> Int {
        var size = winsize()
        guard ioctl(fileDescriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }
}
