import Foundation
import Testing

/// Runs each test of a suite (or one test) on threads of their own instead of Swift's cooperative thread pool.
///
/// Swift Testing runs synchronous tests on the cooperative pool, which has one thread per core. A test that
/// blocks (waiting on a semaphore, ``ProcedureWaiter``, `waitUntilAllOperationsAreFinished()`) holds one of them
/// for as long as it waits: on a two-core machine, two such tests stall every other test, and an async test's
/// child task may not start before its own timeout runs out. With this trait, the test's code runs on dispatch
/// threads outside the pool (its tasks prefer a ``DedicatedThreadExecutor``), so blocking tests run side by side
/// and leave the pool to the code under test.
///
/// ```swift
/// @Suite(.dedicatedThreads)
/// struct CheckoutTests {
///     @Test func paymentFinishes() {
///         let procedure = PaymentProcedure()
///         ProcedureQueue().add(procedure: procedure)
///         #expect(ProcedureWaiter.wait(for: procedure, timeout: 10))
///     }
/// }
/// ```
///
/// Applied to a suite it applies to every test in it, nested suites included. Code isolated to an actor (the main
/// actor, say) still runs on that actor.
public struct DedicatedThreadsTrait: TestTrait, SuiteTrait, TestScoping {
    /// Applies to every test and nested suite of the suite it is attached to.
    public var isRecursive: Bool { true }

    /// Runs `function` with ``DedicatedThreadExecutor/shared`` as its task executor preference (for each test
    /// case; a suite's own scope is left as it is).
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else {
            try await function()
            return
        }
        try await withTaskExecutorPreference(DedicatedThreadExecutor.shared) { try await function() }
    }
}

extension Trait where Self == DedicatedThreadsTrait {
    /// Runs the tests on threads of their own, outside Swift's cooperative thread pool: see
    /// ``DedicatedThreadsTrait``.
    public static var dedicatedThreads: Self { Self() }
}

/// A task executor that runs every job on a concurrent dispatch queue, outside Swift's cooperative thread pool: a
/// job that blocks holds a thread of its own, not one of the pool's. Thread-safe (`Sendable`): the queue is
/// immutable and libdispatch is thread-safe.
public final class DedicatedThreadExecutor: TaskExecutor {
    /// The executor ``DedicatedThreadsTrait`` uses. It lives for the whole process: a task that prefers an
    /// executor does not keep it alive, and an unstructured task created in a test (which inherits the
    /// preference) may run after the test has ended.
    public static let shared = DedicatedThreadExecutor()

    private let queue = DispatchQueue(label: "PKTesting.DedicatedThreadExecutor", attributes: .concurrent)

    /// Creates an executor with a queue of its own. Keep it alive for as long as any task may prefer it.
    public init() {}

    /// Runs `job` on the executor's queue.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) }
    }
}
