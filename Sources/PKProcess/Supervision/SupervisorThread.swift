import Dispatch
import PKCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The threads that run ``ChildSupervisor``s: detached POSIX threads with the system's default stack (the
/// procedure finishes on one, and whatever the queue then runs there must not find a small stack), kept for reuse.
///
/// PERF(W21): a thread that has supervised a child waits up to ``idleLifetime`` for the next one instead of
/// exiting, so that a queue running many short processes does not pay for a thread's creation, first stack faults
/// and exit each time (about a quarter of a short process's overhead over a bare `posix_spawn` loop). Threads are
/// created as needed, one per running child at most, and `pthread_create` directly rather than `Foundation.Thread`.
enum SupervisorThread {

    /// How long an idle thread waits for another child before it exits.
    static let idleLifetime: DispatchTimeInterval = .seconds(5)

    /// A parked thread: its job is handed over under the pool's lock, then it is woken.
    private final class Worker: Sendable {
        let wake = DispatchSemaphore(value: 0)
        let job = PKMutex<(@Sendable () -> Void)?>(nil)
    }

    /// The parked threads, most recently parked last (it is the one woken first: its stack is warm).
    private static let idle = PKMutex<[Worker]>([])

    /// Runs `body` on a parked thread, or a new one; the error when the system has no thread to give.
    static func start(_ body: @escaping @Sendable () -> Void) -> SystemCallError? {
        if let worker = idle.withLock({ $0.popLast() }) {
            worker.job.withLock { $0 = body }
            worker.wake.signal()
            return nil
        }
        return spawnThread(Worker(), firstJob: body)
    }

    /// What a new thread starts with. Its first job is taken out of it, so that the job (and the procedure it
    /// holds) is released when done, not when the thread exits.
    private final class Context {
        let worker: Worker
        private var firstJob: (@Sendable () -> Void)?
        init(worker: Worker, firstJob: @escaping @Sendable () -> Void) {
            self.worker = worker
            self.firstJob = firstJob
        }
        func takeFirstJob() -> (@Sendable () -> Void)? {
            defer { firstJob = nil }
            return firstJob
        }
    }

    private static func spawnThread(_ worker: Worker, firstJob: @escaping @Sendable () -> Void) -> SystemCallError? {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        let context = Unmanaged.passRetained(Context(worker: worker, firstJob: firstJob)).toOpaque()
        #if canImport(Darwin)
            var thread: pthread_t? = nil
        #else
            var thread = pthread_t()
        #endif
        let created = pthread_create(&thread, &attributes, threadEntry, context)
        guard created == 0 else {
            Unmanaged<Context>.fromOpaque(context).release()
            return SystemCallError(call: "pthread_create", number: created)
        }
        return nil
    }

    /// A thread's life: its first job, then jobs handed over while it is parked, until it is idle too long.
    private static func serve(_ context: Context) {
        let worker = context.worker
        var job = context.takeFirstJob()
        while job != nil {
            runAndRelease(&job)
            idle.withLock { $0.append(worker) }
            if worker.wake.wait(timeout: .now() + idleLifetime) == .timedOut {
                // Leave, unless a job was handed over meanwhile (then it has signalled, or is about to).
                let left = idle.withLock { idle in
                    guard let index = idle.firstIndex(where: { $0 === worker }) else { return false }
                    idle.remove(at: index)
                    return true
                }
                if left { return }
                worker.wake.wait()
            }
            job = worker.job.withLock { job in
                defer { job = nil }
                return job
            }
        }
    }

    /// Runs `job` and lets go of it before returning, so that a parked thread holds no finished procedure.
    private static func runAndRelease(_ job: inout (@Sendable () -> Void)?) {
        guard let current = job else { return }
        job = nil
        current()
    }

    #if canImport(Darwin)
        private static let threadEntry: @convention(c) (UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? = {
            raw in
            serve(Unmanaged<Context>.fromOpaque(raw).takeRetainedValue())
            return nil
        }
    #else
        private static let threadEntry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = {
            raw in
            guard let raw else { return nil }
            serve(Unmanaged<Context>.fromOpaque(raw).takeRetainedValue())
            return nil
        }
    #endif
}
