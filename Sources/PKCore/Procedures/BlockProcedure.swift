import Foundation
import Synchronization

/// A procedure that runs a closure: a throwing closure that the procedure finishes after, or (ProcedureKit's
/// other form) a closure given the procedure itself, which must call `finish()` on it.
///
/// ```swift
/// queue.add(procedure: BlockProcedure { print("Hello") })
///
/// let fetch = BlockProcedure { this in
///     client.fetch { result in this.finish(with: result.error) }
/// }
/// ```
///
/// The throwing form finishes when the closure returns, or with the error it throws. The self-finishing form
/// finishes when its closure (or anything it started) calls `finish`; if that has not happened
/// ``defaultTimeoutInterval`` seconds after it started (3 by default, as in ProcedureKit), a warning is logged and
/// the procedure is cancelled with ``ProcedureKitError/timedOut(with:)``, but it still finishes only when the
/// closure calls `finish`. The closure runs in the procedure's event context on the queue's dispatch queue, and
/// is released when the procedure finishes. A cancelled block procedure does not run its closure.
open class BlockProcedure: Procedure, @unchecked Sendable {
    // @unchecked Sendable: `body` and `clock` are immutable and Sendable; the pending timeout is guarded by its
    // PKMutex; everything else is the superclass's.

    /// A closure given the procedure, which must finish it.
    public typealias SelfBlock = @Sendable (BlockProcedure) -> Void
    /// A closure the procedure finishes after (with the error, if it throws).
    public typealias ThrowingVoidBlock = @Sendable () throws -> Void

    private enum Body {
        case throwing(ThrowingVoidBlock)
        case selfFinishing(SelfBlock, timeout: TimeInterval)
    }

    private let body: Body
    private let clock: any ProcedureClock
    private let timeoutAction = PKMutex<(any ScheduledAction)?>(nil)

    private static let defaultTimeoutBits = Atomic<UInt64>((3.0 as TimeInterval).bitPattern)

    /// How long a self-finishing block procedure may run before it is cancelled with
    /// ``ProcedureKitError/timedOut(with:)``: 3 seconds unless changed. Read when the procedure is created; zero
    /// or less means no timeout.
    public static var defaultTimeoutInterval: TimeInterval {
        get { TimeInterval(bitPattern: defaultTimeoutBits.load(ordering: .relaxed)) }
        set { defaultTimeoutBits.store(newValue.bitPattern, ordering: .relaxed) }
    }

    /// Creates a procedure that runs `block` and then finishes (with the error `block` throws, if any).
    public init(block: @escaping ThrowingVoidBlock) {
        body = .throwing(block)
        clock = SystemClock()
        super.init()
    }

    /// Creates a procedure that runs `block` with itself; `block` must call `finish` on it, now or later.
    ///
    /// After ``defaultTimeoutInterval`` (or `timeout`, if given) measured on `clock` from when the block starts,
    /// an unfinished procedure is cancelled with ``ProcedureKitError/timedOut(with:)`` and a warning is logged.
    public init(
        timeout: TimeInterval? = nil, clock: any ProcedureClock = SystemClock(), block: @escaping SelfBlock
    ) {
        body = .selfFinishing(block, timeout: timeout ?? Self.defaultTimeoutInterval)
        self.clock = clock
        super.init()
    }

    /// Runs the block (and, for the throwing form, finishes).
    open override func execute() {
        switch body {
        case .throwing(let block):
            do {
                try block()
                finish()
            } catch {
                finish(with: error)
            }
        case .selfFinishing(let block, let timeout):
            if timeout > 0 { startTimeout(timeout) }
            block(self)
        }
    }

    private func startTimeout(_ timeout: TimeInterval) {
        let action = clock.schedule(after: Duration(timeInterval: timeout)) { [weak self] in
            self?.timeoutDidFire(timeout)
        }
        timeoutAction.withLock { $0 = action }
    }

    private func timeoutDidFire(_ timeout: TimeInterval) {
        let fired = timeoutAction.withLock { replaceValue(&$0, with: nil) }
        withExtendedLifetime(fired) {}  // the clock's action, released outside the lock
        guard !isFinished, !isCancelled else { return }
        log.warning(
            "\(procedureName) did not finish within \(timeout) s; cancelling it (its block must still call finish)")
        cancel(with: ProcedureKitError.timedOut(with: .by(timeout)))
    }

    override func procedureIsFinished() {
        timeoutAction.withLock { action -> (any ScheduledAction)? in
            defer { action = nil }
            return action
        }?.cancel()
    }
}
