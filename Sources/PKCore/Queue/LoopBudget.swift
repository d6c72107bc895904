import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where worker loops run, process-wide: at most ``limit`` at once (the number of cores), each on a lane of its
/// own, and more while those are all blocked.
///
/// Worker loops run `execute()`. On Linux the global dispatch pool has about as many threads as cores (fewer free
/// ones when Swift concurrency or other code is busy on them) and grows by roughly one thread a second when they
/// all block. If loops ran on that pool, every pool thread could end up inside an `execute()` that blocks waiting for
/// other work sent to the global queues (a `DispatchGroup.wait` for blocks it dispatched, say), and that work would
/// wait for the pool to grow: 200 such procedures took 20 seconds. So loops never run on the shared pool: a loop runs
/// on a lane, a private serial queue (for which Dispatch always finds a thread), and only ``limit`` lanes are busy at
/// once, so CPU-bound work runs about one loop per core; further loops wait here for a lane.
///
/// A limit alone would turn blocked lanes into a stall: loops that block waiting for work that needs a loop of its
/// own (an `execute()` waiting for another procedure on its queue) would wait for ever. So while loops wait, a
/// monitor looks every millisecond at the busy lanes' threads: when none of them used the CPU since its last look
/// (all blocked, none busy), one waiting loop runs on a relief thread of its own, up to ``reliefLimit`` at once.
/// Procedures waiting asynchronously (returned from `execute()`, waiting for a reply) hold no loop and are not
/// limited at all. Queues with an `underlyingQueue` run their loops there, outside this budget.
///
/// Lock order: a queue's lock is never held while this one is taken, nor the other way round.
enum LoopBudget {

    /// Loops that may run on lanes at once.
    static let limit: Int = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))

    /// Relief loops (on threads of their own) that may run at once.
    static let reliefLimit = 128

    /// How often the monitor looks, while loops wait.
    static let interval = DispatchTimeInterval.milliseconds(1)

    /// A loop waiting for a lane: its queue (retained by `WorkerLoop.spawn`) and its quality of service.
    struct Waiting {
        let queue: Unmanaged<ProcedureQueue>
        let qos: DispatchQoS.QoSClass
    }

    /// Where a lane's current loop thread's CPU clock is published, without a lock (``none``: no loop running;
    /// thread CPU clock ids are negative numbers on Linux, so `-1` cannot serve).
    fileprivate final class LaneClock: Sendable {
        static let none = Int64.min
        let clock = Atomic<Int64>(LaneClock.none)
    }

    fileprivate struct State {
        /// Lanes not running a loop.
        var freeLanes = Array((0..<LoopBudget.limit).reversed())
        /// Each quality of service's lane queues, made on first use.
        var laneQueues: [DispatchQoS.QoSClass: [DispatchQueue]] = [:]
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
    /// Each lane queue carries its index, so a loop can tell which lane it holds.
    fileprivate static let laneKey = DispatchSpecificKey<Int>()

    /// Takes a lane for a loop of `queue` at `qos` and returns it to dispatch the loop on; `nil` when none is free
    /// (the loop then waits here, and the monitor is armed).
    static func acquire(_ queue: Unmanaged<ProcedureQueue>, qos: DispatchQoS.QoSClass) -> DispatchQueue? {
        let (lane, arm) = state.withLock { state -> (DispatchQueue?, Bool) in
            if let index = state.freeLanes.popLast() { return (state.laneQueue(index, qos: qos), false) }
            state.waiting.append(Waiting(queue: queue, qos: qos))
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

    /// The lane the calling thread's loop holds (from its queue-specific value), if it runs on one.
    static var currentLane: Int? { DispatchQueue.getSpecific(key: laneKey) }

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
            if let next = state.waiting.popFirst() { return next }
            state.freeLanes.append(lane)
            return nil
        }
    }

    /// A relief loop ended.
    static func reliefLoopEnded() {
        state.withLock { $0.relief -= 1 }
    }

    /// How many lanes are busy, relief loops run and loops wait now; for tests and the benchmark.
    static var counts: (busy: Int, relief: Int, waiting: Int) {
        state.withLock { (limit - $0.freeLanes.count, $0.relief, $0.waiting.count) }
    }

    private static func scheduleMonitor() {
        monitorQueue.asyncAfter(deadline: .now() + interval) { monitor() }
    }

    /// One look: if loops wait and every busy lane's thread is blocked, one waiting loop gets a thread of its own.
    private static func monitor() {
        let (relieve, rearm) = state.withLock { state -> (Waiting?, Bool) in
            guard !state.waiting.isEmpty else {
                state.monitorArmed = false
                return (nil, false)
            }
            let allBlocked = state.sampleThreads()
            guard allBlocked, state.relief < reliefLimit, let waiting = state.waiting.popFirst() else {
                return (nil, true)
            }
            state.relief += 1
            return (waiting, true)
        }
        if let relieve { WorkerLoop.runRelief(relieve) }
        if rearm { scheduleMonitor() }
    }
}

extension LoopBudget.State {

    /// The queue of lane `index` at `qos`, made on first use.
    fileprivate mutating func laneQueue(_ index: Int, qos: DispatchQoS.QoSClass) -> DispatchQueue {
        if let lanes = laneQueues[qos] { return lanes[index] }
        let lanes = (0..<LoopBudget.limit).map { lane -> DispatchQueue in
            let queue = DispatchQueue(
                label: "PKCore.WorkerLoop.lane\(lane)", qos: DispatchQoS(qosClass: qos, relativePriority: 0))
            queue.setSpecific(key: LoopBudget.laneKey, value: lane)
            return queue
        }
        laneQueues[qos] = lanes
        return lanes[index]
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
        return allBlocked
    }
}
