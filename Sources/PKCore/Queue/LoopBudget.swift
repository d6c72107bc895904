import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where worker loops run, process-wide: at most ``limit`` at once (the number of cores), each on a lane, and more
/// while those are all blocked.
///
/// Worker loops run `execute()`. On Linux the global dispatch pool has about as many threads as cores (fewer free
/// ones when Swift concurrency or other code is busy on them) and grows by roughly one thread a second when they
/// all block. If loops took every pool thread, each could end up inside an `execute()` that blocks waiting for other
/// work sent to the global queues (a `DispatchGroup.wait` for blocks it dispatched, say), and that work would wait
/// for the pool to grow: 200 such procedures took 20 seconds. So loops leave at least one pool thread to others:
///
/// - ``sharedLanes`` lanes (one fewer than the cores) run their loops on the global queues and are taken at once. A
///   loop on a pool thread hands what it resumes (an awaiting task's continuation, the next loop) to the pool
///   without waking another thread; on a private thread, awaiting `run(_:)` cost 1.4–1.5 µs instead of 1.0–1.1
///   (benchmark W10, two cores).
/// - The last lane, the reserve, is a private serial queue, for which Dispatch finds a thread beyond the pool's
///   width. A loop gets it only after waiting through one look of the monitor (a millisecond), so long-running
///   work still gets every core, while a loop dispatched in case the running one blocks, which usually finds the
///   running loop passing its lane on first, adds no thread. With one core the reserve is the only lane, taken at
///   once.
///
/// A limit alone would turn blocked lanes into a stall: loops that block waiting for work that needs a loop of its
/// own (an `execute()` waiting for another procedure on its queue) would wait for ever. So while loops wait, a
/// monitor looks every millisecond at the busy lanes' threads: when none of them used the CPU since its last look
/// (all blocked, none busy), one waiting loop runs on a relief thread of its own, up to ``reliefLimit`` at once.
///
/// A thread that waits for a core uses no CPU either, so a lane whose thread used none is counted as blocked only if
/// the kernel also says the thread is not runnable (`/proc/self/task/<tid>/stat`). Counting by CPU time alone, relief
/// fed itself under contention: on two cores, loops spinning on relief threads starved the lanes' threads, which
/// then looked blocked and brought more relief (400 procedures of 20 ms ran a dozen at a time).
///
/// What this cannot prevent: when code outside the budget blocks the pool threads the shared lanes leave free (a
/// Swift task or a global-queue block waiting synchronously for these very procedures), a shared lane's `execute()`
/// blocked on global-queue work waits for the pool to grow, about a second (the 200 above: 1 s, waited for from a
/// pool thread on two cores).
///
/// Lock order: a queue's lock is never held while this one is taken, nor the other way round.
enum LoopBudget {

    /// Loops that may run on lanes at once: one per core.
    static let limit: Int = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))

    /// Lanes whose loops run on the global queues: all but the reserve (the last lane).
    static let sharedLanes = limit - 1

    /// The reserve lane's index.
    static let reserveLane = limit - 1

    /// Relief loops (on threads of their own) that may run at once.
    static let reliefLimit = 128

    /// How often the monitor looks, while loops wait.
    static let interval = DispatchTimeInterval.milliseconds(1)

    /// How long a loop keeps its lane while other loops wait for one, in nanoseconds.
    static let slice: UInt64 = 10_000_000

    /// A loop waiting for a lane: its queue (retained by `WorkerLoop.spawn`), its quality of service, and the work it
    /// starts with (already taken from its queue) when it gave up a lane to let others run.
    struct Waiting {
        let queue: Unmanaged<ProcedureQueue>
        let qos: DispatchQoS.QoSClass
        var first: WorkerLoop.Work? = nil
    }

    /// Whether any loop waits for a lane; read without the lock after each operation a lane's loop runs.
    private static let someWaiting = Atomic<Bool>(false)

    /// Whether loops wait for a lane (a hint: read without the lock).
    static var loopsAreWaiting: Bool { someWaiting.load(ordering: .relaxed) }

    /// Where a lane's current loop thread's CPU clock is published, without a lock (``none``: no loop running;
    /// thread CPU clock ids are negative numbers on Linux, so `-1` cannot serve).
    fileprivate final class LaneClock: Sendable {
        static let none = Int64.min
        let clock = Atomic<Int64>(LaneClock.none)
    }

    fileprivate struct State {
        /// Shared lanes not running a loop.
        var freeLanes = Array((0..<LoopBudget.sharedLanes).reversed())
        var reserveFree = true
        /// Each quality of service's reserve lane queue, made on first use.
        var reserveQueues: [DispatchQoS.QoSClass: DispatchQueue] = [:]
        var relief = 0
        var waiting = FIFO<Waiting>()
        var monitorArmed = false
        /// The CPU time of each lane's thread at the monitor's last look (`-1`: not seen).
        var lastCPUTimes = Array(repeating: Int64(-1), count: LoopBudget.limit)
    }

    /// Taken by every loop that starts or ends on a lane: contended briefly and often, like a queue's state.
    // PERF(W10): an adaptive mutex, not a priority-inheritance futex (see ContendedMutex).
    private static let state = ContendedMutex(State())
    fileprivate static let clocks = (0..<LoopBudget.limit).map { _ in LaneClock() }
    private static let monitorQueue = DispatchQueue(label: "PKCore.LoopBudget.monitor")

    /// Takes a lane for a loop of `queue` at `qos` and returns it to dispatch the loop on; `nil` when none is free
    /// (the loop then waits here, and the monitor is armed).
    static func acquire(_ queue: Unmanaged<ProcedureQueue>, qos: DispatchQoS.QoSClass) -> (Int, DispatchQueue)? {
        let (lane, arm) = state.withLock { state -> ((Int, DispatchQueue)?, Bool) in
            if let index = state.freeLanes.popLast() { return ((index, state.laneQueue(index, qos: qos)), false) }
            if LoopBudget.sharedLanes == 0, state.reserveFree {
                state.reserveFree = false
                return ((LoopBudget.reserveLane, state.laneQueue(LoopBudget.reserveLane, qos: qos)), false)
            }
            state.waiting.append(Waiting(queue: queue, qos: qos))
            someWaiting.store(true, ordering: .relaxed)
            defer { state.monitorArmed = true }
            return (nil, !state.monitorArmed)
        }
        if arm { scheduleMonitor() }
        return lane
    }

    /// The queue of lane `lane` at `qos`.
    static func queue(ofLane lane: Int, qos: DispatchQoS.QoSClass) -> DispatchQueue {
        state.withLock { $0.laneQueue(lane, qos: qos) }
    }

    /// A loop begins running on lane `lane`, on this thread: its CPU clock is published for the monitor.
    static func laneLoopStarted(_ lane: Int) {
        #if os(Linux)
            var clock = clockid_t()
            if pthread_getcpuclockid(pthread_self(), &clock) == 0 {
                clocks[lane].clock.store(Int64(clock), ordering: .relaxed)
            }
        #endif
    }

    /// The loop on lane `lane` stops running on this thread (it ended, or goes on in another block).
    static func laneLoopPaused(_ lane: Int) {
        clocks[lane].clock.store(LaneClock.none, ordering: .relaxed)
    }

    /// The loop on lane `lane` ended: the lane goes to the first waiting loop, if any (returned for the caller to
    /// run on this thread, keeping the lane), otherwise back to the free lanes.
    static func laneLoopEnded(_ lane: Int) -> Waiting? {
        laneLoopPaused(lane)
        return state.withLock { state -> Waiting? in
            if let next = state.popFirstWaiting() { return next }
            if lane == LoopBudget.reserveLane { state.reserveFree = true } else { state.freeLanes.append(lane) }
            return nil
        }
    }

    /// A loop that has held its lane or relief thread for a ``slice`` and will go on with `first`: if a loop of
    /// another queue waits, this one joins the back of the line and the first such loop is returned, to run on this
    /// thread in its place; `nil` when none waits (the loop keeps its thread: giving it to another loop of its own
    /// queue would only move the same work).
    static func yield(queue: Unmanaged<ProcedureQueue>, qos: DispatchQoS.QoSClass, first: WorkerLoop.Work) -> Waiting? {
        let own = queue.toOpaque()
        return state.withLock { state -> Waiting? in
            guard let next = state.waiting.removeFirst(where: { $0.queue.toOpaque() != own }) else { return nil }
            state.waiting.append(Waiting(queue: queue, qos: qos, first: first))
            someWaiting.store(true, ordering: .relaxed)
            return next
        }
    }

    fileprivate static func clearWaitingFlag() {
        someWaiting.store(false, ordering: .relaxed)
    }

    /// A relief loop ended.
    static func reliefLoopEnded() {
        state.withLock { $0.relief -= 1 }
    }

    /// How many lanes are busy, relief loops run and loops wait now; for tests and the benchmark.
    static var counts: (busy: Int, relief: Int, waiting: Int) {
        state.withLock { (limit - $0.freeLanes.count - ($0.reserveFree ? 1 : 0), $0.relief, $0.waiting.count) }
    }

    /// The kernel id of the thread whose CPU clock is `clock`: Linux makes a thread's CPU clock id from it, as
    /// `(~tid << 3) | 6` (MAKE_THREAD_CPUCLOCK).
    static func thread(ofCPUClock clock: Int64) -> Int32 {
        ~(Int32(truncatingIfNeeded: clock) >> 3)
    }

    /// Whether thread `thread` of this process is running or waiting for a core (state `R` in
    /// `/proc/self/task/<thread>/stat`); `false` when that cannot be read.
    static func threadIsRunnable(_ thread: Int32) -> Bool {
        #if os(Linux)
            guard thread > 0 else { return false }
            let descriptor = open("/proc/self/task/\(thread)/stat", O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return false }
            defer { close(descriptor) }
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 256) { buffer -> Bool in
                let count = read(descriptor, buffer.baseAddress, buffer.count)
                guard count > 0 else { return false }
                // "tid (name) S ...": the name may hold spaces and parentheses, so the state follows the last ")".
                let text = buffer[..<count]
                guard let close = text.lastIndex(of: UInt8(ascii: ")")), close + 2 < count else { return false }
                return text[close + 2] == UInt8(ascii: "R")
            }
        #else
            return false
        #endif
    }

    private static func scheduleMonitor() {
        monitorQueue.asyncAfter(deadline: .now() + interval) { monitor() }
    }

    /// One look: if loops wait, the first gets the reserve lane if it is free, or else, if every busy lane's thread
    /// is blocked, a thread of its own.
    private static func monitor() {
        enum Action {
            case none
            case reserve(Waiting, DispatchQueue)
            case relieve(Waiting)
        }
        let (action, rearm) = state.withLock { state -> (Action, Bool) in
            guard !state.waiting.isEmpty else {
                state.monitorArmed = false
                return (.none, false)
            }
            let allBlocked = state.sampleThreads()
            if state.reserveFree, let waiting = state.popFirstWaiting() {
                state.reserveFree = false
                return (.reserve(waiting, state.laneQueue(reserveLane, qos: waiting.qos)), true)
            }
            guard allBlocked, state.relief < reliefLimit, let waiting = state.popFirstWaiting() else {
                return (.none, true)
            }
            state.relief += 1
            return (.relieve(waiting), true)
        }
        switch action {
        case .none: break
        case .reserve(let waiting, let lane):
            WorkerLoop.runOnLane(waiting.queue, first: waiting.first, lane: reserveLane, on: lane)
        case .relieve(let waiting): WorkerLoop.runRelief(waiting)
        }
        if rearm { scheduleMonitor() }
    }
}

extension LoopBudget.State {

    /// Takes the first waiting loop, keeping ``LoopBudget/loopsAreWaiting`` up to date.
    fileprivate mutating func popFirstWaiting() -> LoopBudget.Waiting? {
        let first = waiting.popFirst()
        if waiting.isEmpty { LoopBudget.clearWaitingFlag() }
        return first
    }

    /// The queue of lane `index` at `qos`: a global queue for a shared lane; the reserve's is made on first use.
    fileprivate mutating func laneQueue(_ index: Int, qos: DispatchQoS.QoSClass) -> DispatchQueue {
        if index < LoopBudget.sharedLanes { return DispatchQueue.global(qos: qos) }
        if let queue = reserveQueues[qos] { return queue }
        let queue = DispatchQueue(
            label: "PKCore.WorkerLoop.reserve", qos: DispatchQoS(qosClass: qos, relativePriority: 0))
        reserveQueues[qos] = queue
        return queue
    }

    /// Reads the CPU time of every lane's thread; returns whether every lane is running a loop whose thread is
    /// blocked (it used less than 5% of the interval on the CPU since the last look; a lane without a running loop,
    /// or whose time cannot be read, counts as not blocked).
    fileprivate mutating func sampleThreads() -> Bool {
        var allBlocked = true
        for lane in lastCPUTimes.indices {
            let published = LoopBudget.clocks[lane].clock.load(ordering: .relaxed)
            var time = timespec()
            guard published != LoopBudget.LaneClock.none, clock_gettime(clockid_t(published), &time) == 0 else {
                lastCPUTimes[lane] = -1
                allBlocked = false
                continue
            }
            let nanoseconds = Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
            if lastCPUTimes[lane] < 0 || nanoseconds - lastCPUTimes[lane] > 50_000 { allBlocked = false }
            lastCPUTimes[lane] = nanoseconds
        }
        guard allBlocked else { return false }
        // Confirmed with the kernel, which is slower: a thread waiting for a core used no CPU either.
        for lane in lastCPUTimes.indices {
            let published = LoopBudget.clocks[lane].clock.load(ordering: .relaxed)
            guard published != LoopBudget.LaneClock.none else { return false }
            if LoopBudget.threadIsRunnable(LoopBudget.thread(ofCPUClock: published)) { return false }
        }
        return true
    }
}
