import Foundation
import PKTesting
import Synchronization
import Testing

@testable import PKCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value behind a lock, shareable by closures (a `PKMutex`, which ThreadSanitizer sees, unlike `Mutex`).
private final class Locked<Value: Sendable>: Sendable {
    private let mutex: PKMutex<Value>
    init(_ value: Value) { mutex = PKMutex(value) }
    func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
}

/// The calling thread's identity, comparable while the thread lives.
private func currentThreadID() -> UInt {
    #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
    #else
        UInt(pthread_self())
    #endif
}

/// Threads started by a test, kept alive until the test ends: a thread's identity can be reused once it exits.
private final class TestThreads: Sendable {
    private let exit = DispatchSemaphore(value: 0)
    private let started = Locked(0)

    /// Runs `body` on a new thread and returns that thread's identity once `body` has begun.
    func run(_ body: @escaping @Sendable () -> Void) -> UInt {
        let id = Locked<UInt>(0)
        let begun = DispatchSemaphore(value: 0)
        let thread = Thread { [exit] in
            id.withLock { $0 = currentThreadID() }
            begun.signal()
            body()
            exit.wait()
        }
        started.withLock { $0 += 1 }
        thread.start()
        begun.wait()
        return id.withLock { $0 }
    }

    /// Lets every thread exit once its body returned.
    func end() {
        for _ in 0..<started.withLock({ $0 }) { exit.signal() }
    }
}

/// A procedure recording the thread its `execute()` ran on.
private final class ThreadRecordingProcedure: Procedure, @unchecked Sendable {
    // @unchecked Sendable: its own fields are immutable `Locked` boxes or Sendable; the superclass guards its state with its PKMutex.
    let executedOn = Locked<UInt?>(nil)
    let executedOnUnderlying = Locked<Bool?>(nil)
    let key: DispatchSpecificKey<Int>?

    init(key: DispatchSpecificKey<Int>? = nil) {
        self.key = key
        super.init()
    }

    override func execute() {
        executedOn.withLock { $0 = currentThreadID() }
        if let key { executedOnUnderlying.withLock { $0 = DispatchQueue.getSpecific(key: key) != nil } }
        finish()
    }
}

/// An observer whose `didAttach` holds the attaching thread (the procedure's event context) until released.
private struct HoldingObserver: ProcedureObserver {
    let attached: DispatchSemaphore
    let release: DispatchSemaphore

    func didAttach(to procedure: Procedure) {
        attached.signal()
        release.wait()
    }
}

/// An observer recording the thread its WillExecute callback ran on.
private struct WillExecuteThreadObserver: ProcedureObserver {
    let thread: Locked<UInt?>

    func will(execute procedure: Procedure, pendingExecute: PendingExecuteEvent) {
        thread.withLock { $0 = currentThreadID() }
    }
}

/// `execute()` and the WillExecute phase run only on threads of the procedure's queue (its worker, its
/// `underlyingQueue`, or a global queue at its quality of service), never on a thread that came in for another
/// of the procedure's events (issue 22 §1).
struct ExecuteThreadTests {

    /// Waits (up to 10 s) until the queue's start of `procedure` is queued behind the event in progress.
    private func waitForQueuedStart(_ procedure: Procedure) -> Bool {
        let deadline = DispatchTime.now() + 10
        while DispatchTime.now() < deadline {
            if procedure.storage.withLock({ $0.loop.hasQueuedEvents }) { return true }
            sched_yield()
        }
        return false
    }

    /// Adds `procedure` to `queue` while a new thread attaching an observer holds its events, lets the queue start
    /// it (the start waits behind the attach), runs `whileStartWaits`, then lets the attach end. Returns the
    /// attaching thread.
    private func startBehindAHeldAttach(
        _ procedure: Procedure, on queue: ProcedureQueue, threads: TestThreads,
        whileStartWaits: () -> Void = {}, sourceLocation: SourceLocation = #_sourceLocation
    ) -> UInt {
        queue.isSuspended = true
        queue.add(procedure: procedure)
        let attached = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let attachingThread = threads.run {
            procedure.addObserver(HoldingObserver(attached: attached, release: release))
        }
        #expect(attached.wait(timeout: .now() + 10) == .success, sourceLocation: sourceLocation)
        queue.isSuspended = false
        #expect(waitForQueuedStart(procedure), sourceLocation: sourceLocation)
        whileStartWaits()
        release.signal()
        return attachingThread
    }

    /// A thread attaching an observer is draining the procedure's events when its queue starts it: the start
    /// goes back to a thread of the queue instead of running on the attaching thread after its observer.
    @Test(arguments: [false, true])
    func aStartQueuedBehindAnAttachDoesNotRunOnTheAttachingThread(underlying: Bool) {
        let key = DispatchSpecificKey<Int>()
        let queue = ProcedureQueue()
        if underlying {
            let dispatchQueue = DispatchQueue(label: "ExecuteThreadTests.underlying")
            dispatchQueue.setSpecific(key: key, value: 1)
            queue.underlyingQueue = dispatchQueue
        }
        let procedure = ThreadRecordingProcedure(key: underlying ? key : nil)
        let willExecuteThread = Locked<UInt?>(nil)
        procedure.addObserver(WillExecuteThreadObserver(thread: willExecuteThread))
        let finished = DispatchSemaphore(value: 0)
        procedure.addDidFinishBlockObserver { _, _ in finished.signal() }

        let threads = TestThreads()
        defer { threads.end() }
        let attachingThread = startBehindAHeldAttach(procedure, on: queue, threads: threads)

        #expect(finished.wait(timeout: .now() + 10) == .success)
        let executedOn = procedure.executedOn.withLock { $0 }
        #expect(executedOn != nil)
        #expect(executedOn != attachingThread)
        #expect(willExecuteThread.withLock { $0 } != attachingThread)
        if underlying { #expect(procedure.executedOnUnderlying.withLock { $0 } == true) }
    }

    /// A WillExecute observer keeps the pending-execute token past its callback and another thread lets go of it:
    /// `execute()` runs on a thread of the queue, not on the releasing one.
    @Test func executeDoesNotRunOnTheThreadReleasingAHeldWillExecuteToken() {
        let queue = ProcedureQueue()
        let procedure = ThreadRecordingProcedure()
        let held = Locked<PendingExecuteEvent?>(nil)
        let tokenHeld = DispatchSemaphore(value: 0)
        procedure.addWillExecuteBlockObserver { _, pending in
            held.withLock { $0 = pending }
            tokenHeld.signal()
        }
        let finished = DispatchSemaphore(value: 0)
        procedure.addDidFinishBlockObserver { _, _ in finished.signal() }
        queue.add(procedure: procedure)
        #expect(tokenHeld.wait(timeout: .now() + 10) == .success)

        let threads = TestThreads()
        defer { threads.end() }
        let releasingThread = threads.run {
            // The last reference goes here.
            let token = held.withLock { $0.take() }
            withExtendedLifetime(token) {}
        }
        #expect(finished.wait(timeout: .now() + 10) == .success)
        #expect(procedure.executedOn.withLock { $0 } != nil)
        #expect(procedure.executedOn.withLock { $0 } != releasingThread)
    }

    /// A procedure cancelled while its start waited behind another thread's event finishes without executing,
    /// wherever its start ran.
    @Test func aCancelledProcedureWhoseStartWaitedFinishesWithoutExecuting() {
        let queue = ProcedureQueue()
        let procedure = ThreadRecordingProcedure()
        let finished = DispatchSemaphore(value: 0)
        procedure.addDidFinishBlockObserver { _, _ in finished.signal() }
        let threads = TestThreads()
        defer { threads.end() }
        _ = startBehindAHeldAttach(procedure, on: queue, threads: threads) { procedure.cancel() }
        #expect(finished.wait(timeout: .now() + 10) == .success)
        #expect(procedure.isCancelled)
        #expect(procedure.executedOn.withLock { $0 } == nil)
    }

    /// Many threads attach observers to and cancel procedures as their queue starts them: no `execute()` and no
    /// WillExecute callback runs on one of those threads, and every procedure finishes once.
    @Test(arguments: [false, true])
    func executeNeverRunsOnAThreadAttachingObserversOrCancelling(underlying: Bool) {
        let count = 2_000
        let key = DispatchSpecificKey<Int>()
        let queue = ProcedureQueue()
        if underlying {
            let dispatchQueue = DispatchQueue(label: "ExecuteThreadTests.stress", attributes: .concurrent)
            dispatchQueue.setSpecific(key: key, value: 1)
            queue.underlyingQueue = dispatchQueue
        }
        let willExecuteThreads = Locked<[UInt]>([])
        let finishes = Locked<Int>(0)
        let procedures = (0..<count).map { _ in
            let procedure = ThreadRecordingProcedure(key: underlying ? key : nil)
            procedure.addWillExecuteBlockObserver { _, _ in
                willExecuteThreads.withLock { $0.append(currentThreadID()) }
            }
            procedure.addDidFinishBlockObserver { _, _ in finishes.withLock { $0 += 1 } }
            return procedure
        }
        let attackers = 4
        let done = DispatchGroup()
        let ready = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        let threads = TestThreads()
        defer { threads.end() }
        var attackerThreads: [UInt] = []
        for attacker in 0..<attackers {
            done.enter()
            attackerThreads.append(
                threads.run {
                    ready.signal()
                    go.wait()
                    for (index, procedure) in procedures.enumerated() {
                        procedure.addObserver(NoOpObserver())
                        if index % 16 == attacker { procedure.cancel() }
                    }
                    done.leave()
                })
        }
        for _ in 0..<attackers { ready.wait() }
        for _ in 0..<attackers { go.signal() }
        for procedure in procedures { queue.add(procedure: procedure) }
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(waitUntilEmpty(queue, timeout: 60))

        #expect(finishes.withLock { $0 } == count)
        let attackerSet = Set(attackerThreads)
        let executedOn = procedures.compactMap { $0.executedOn.withLock { $0 } }
        #expect(executedOn.allSatisfy { !attackerSet.contains($0) })
        #expect(willExecuteThreads.withLock { $0 }.allSatisfy { !attackerSet.contains($0) })
        if underlying {
            #expect(procedures.allSatisfy { $0.executedOnUnderlying.withLock { $0 } != false })
        }
        // Most procedures were not cancelled, and ran.
        #expect(executedOn.count > count / 2)
    }
}

/// An observer that does nothing: attaching it makes the attaching thread drain the procedure's events.
private struct NoOpObserver: ProcedureObserver {}
