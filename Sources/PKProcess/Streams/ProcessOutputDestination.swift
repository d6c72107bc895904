import Foundation

/// Where a process's standard output or standard error goes: inherited, discarded, a file, or read by this process
/// to be captured (bounded), streamed line by line to a block, written to the procedure's log, or any mix of those
/// three.
///
/// ```swift
/// let list = ProcessProcedure(
///     command: "ls", arguments: ["-1", "/"],
///     standardOutput: .capture(), standardError: .capture(limit: 64 * 1024))
/// ```
///
/// Output read by this process (``capture(limit:)``, ``lines(_:)``, ``log``) goes through a pipe drained by the
/// procedure's supervising thread, so the child never blocks on a full pipe. When the process exits, what it
/// wrote is read to the end, however much its pipe held (a child may grow its pipe); output that processes it left
/// behind write after its exit is neither waited for nor counted (their pipe is closed on our side).
public struct ProcessOutputDestination: Sendable {

    /// What is done with output read through a pipe.
    struct Reading: Sendable {
        var captureLimit: Int?
        var lineHandler: (@Sendable (String) -> Void)?
        var logsLines = false
    }

    enum Kind: Sendable {
        case inherit
        case discard
        case read(Reading)
        case file(URL, append: Bool)
        case fileHandle(FileHandle)
        case pipe(Pipe)
    }

    let kind: Kind

    /// The default ``capture(limit:)`` limit: 16 MiB.
    public static let defaultCaptureLimit = 16 * 1024 * 1024

    /// The longest line handed to a ``lines(_:)`` block or the log: 64 KiB. A longer line is handed over in pieces
    /// of this size.
    public static let maximumLineLength = 64 * 1024

    /// How much of standard error an error's ``ProcessProcedure/Error/standardErrorTail`` keeps: the last 4 KiB.
    public static let standardErrorTailLimit = 4 * 1024

    /// This process's stream, shared with the child (ProcedureKit's and `Foundation.Process`'s default).
    public static let inherit = ProcessOutputDestination(kind: .inherit)

    /// `/dev/null`.
    public static let discard = ProcessOutputDestination(kind: .discard)

    /// Collected into ``ProcessProcedure/TerminationResult``'s `standardOutput` or `standardError`, up to `limit`
    /// bytes.
    ///
    /// Output beyond `limit` is read and dropped, so that the child runs to its end and memory stays bounded
    /// however much it writes; the procedure then fails with ``ProcessProcedure/Error/Code/outputLimitExceeded``
    /// rather than hand on output cut short. A negative limit counts as zero.
    public static func capture(limit: Int = defaultCaptureLimit) -> ProcessOutputDestination {
        ProcessOutputDestination(kind: .read(Reading(captureLimit: max(0, limit))))
    }

    /// Each line (without its `\n` or `\r\n`, decoded as UTF-8 with invalid bytes replaced) handed to `handler`
    /// as it arrives, and the last unterminated line when the stream ends.
    ///
    /// `handler` is called on the procedure's supervising thread, one line at a time and in order; while it runs,
    /// the process's other stream is not read, so keep it quick.
    public static func lines(_ handler: @escaping @Sendable (String) -> Void) -> ProcessOutputDestination {
        ProcessOutputDestination(kind: .read(Reading(lineHandler: handler)))
    }

    /// Each line written to the procedure's log (``/PKCore/Procedure/log``): standard output at `info`, standard
    /// error at `warning`.
    public static let log = ProcessOutputDestination(kind: .read(Reading(logsLines: true)))

    /// The file at `url`, created if needed (mode 0644), truncated unless `append`; the child writes to it
    /// directly. A file that cannot be opened fails the procedure with
    /// ``ProcessProcedure/Error/Code/invalidStandardStream``.
    ///
    /// A FIFO (named pipe) that nobody reads yet is opened once a reader opens it (looked for at growing intervals
    /// of up to 50 ms), as a shell's `>` waits for one: until then the procedure waits, launching nothing, and a
    /// cancel or a time limit ends the wait.
    public static func file(_ url: URL, append: Bool = false) -> ProcessOutputDestination {
        ProcessOutputDestination(kind: .file(url, append: append))
    }

    /// An open file handle, duplicated into the child; the handle stays open and yours. `FileHandle.nullDevice`
    /// (which has no descriptor on Linux) is ``discard``.
    public static func fileHandle(_ handle: FileHandle) -> ProcessOutputDestination {
        handle === FileHandle.nullDevice ? .discard : ProcessOutputDestination(kind: .fileHandle(handle))
    }

    /// The write end of `pipe`, as `Foundation.Process` does: after launch this process closes its copy of that
    /// end, so that reading `pipe.fileHandleForReading` ends when the child (and whatever inherited it) is done.
    ///
    /// So the end goes to one procedure: another procedure given it fails with
    /// ``ProcessProcedure/Error/Code/invalidStandardStream`` before launching, whichever launches first. Standard
    /// output and standard error of one procedure may share it. For several children writing into one pipe, give each
    /// ``fileHandle(_:)`` with `pipe.fileHandleForWriting` (duplicated, and left open), and close it once they have
    /// all launched.
    public static func pipe(_ pipe: Pipe) -> ProcessOutputDestination { ProcessOutputDestination(kind: .pipe(pipe)) }

    /// This destination, also capturing up to `limit` bytes (see ``capture(limit:)``). Combines with
    /// ``lines(_:)`` and ``log``: `.lines { print($0) }.capturing()`.
    public func capturing(limit: Int = defaultCaptureLimit) -> ProcessOutputDestination {
        var reading = self.reading ?? Reading()
        reading.captureLimit = max(0, limit)
        return ProcessOutputDestination(kind: .read(reading))
    }

    /// This destination, also handing each line to `handler` (see ``lines(_:)``): `.capture().streamingLines { … }`.
    public func streamingLines(_ handler: @escaping @Sendable (String) -> Void) -> ProcessOutputDestination {
        var reading = self.reading ?? Reading()
        reading.lineHandler = handler
        return ProcessOutputDestination(kind: .read(reading))
    }

    /// This destination, also writing each line to the procedure's log (see ``log``).
    public func loggingLines() -> ProcessOutputDestination {
        var reading = self.reading ?? Reading()
        reading.logsLines = true
        return ProcessOutputDestination(kind: .read(reading))
    }

    private var reading: Reading? {
        if case .read(let reading) = kind { return reading }
        return nil
    }

    /// The destination for a ProcedureKit-style `standardOutput: Any?`: `nil`, a ``ProcessOutputDestination``, a
    /// `FileHandle` (`FileHandle.nullDevice` included) or a `Pipe`; anything else is `nil`.
    static func from(_ value: (any Sendable)?) -> ProcessOutputDestination? {
        switch value {
        case nil: .inherit
        case let destination as ProcessOutputDestination: destination
        case let pipe as Pipe: .pipe(pipe)
        case let handle as FileHandle: .fileHandle(handle)
        default: nil
        }
    }
}
