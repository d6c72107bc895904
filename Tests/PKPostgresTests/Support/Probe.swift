#if Postgres
    import Foundation
    import PKPostgres
    import PKTesting
    import PKCore

    /// What one test's jobs did, as they tell it: workers make procedures with `init()`, so a job finds its
    /// test's probe by the name its input carries (``TestInput/probe``). Tests running in parallel each have
    /// their own.
    ///
    /// Thread-safe: `state` is a PKMutex; the tracker, the leak check and the registry are thread-safe.
    final class Probe: Sendable {
        /// Something a job did, numbered in the order the probe heard of it.
        struct Event: Sendable, Hashable {
            enum Kind: Sendable, Hashable {
                /// `execute()` began.
                case started
                /// `execute()` saw `isCancelled` and stopped.
                case sawCancellation
                /// `execute()` is about to finish.
                case ended
                /// The completion hook ran, inside the completing transaction.
                case completing
            }

            let sequence: Int
            let kind: Kind
            let label: String
            let job: JobID
            let attempt: Int
            let worker: String
        }

        private struct State {
            var events: [Event] = []
            var released = false
        }

        /// The name jobs find the probe by.
        let name: String
        private let state = PKMutex(State())
        /// How many jobs execute at once, at most.
        let tracker = ConcurrencyTracker()
        /// The procedures the workers made for this probe's jobs, weakly.
        let leaks = LeakCheck()

        private static let registry = PKMutex<[String: Probe]>([:])

        private init(name: String) { self.name = name }

        /// A new probe, registered under a unique name.
        static func make() -> Probe {
            let probe = Probe(name: UUID().uuidString)
            registry.withLock { $0[probe.name] = probe }
            return probe
        }

        /// The probe registered under `name`.
        static func named(_ name: String) -> Probe? { registry.withLock { $0[name] } }

        /// Forgets the probe (at the end of its test).
        func unregister() { _ = Self.registry.withLock { $0.removeValue(forKey: name) } }

        func record(_ kind: Event.Kind, _ label: String, _ job: DurableJobInfo) {
            state.withLock { state in
                state.events.append(
                    Event(
                        sequence: state.events.count, kind: kind, label: label, job: job.id, attempt: job.attempt,
                        worker: job.workerName))
            }
        }

        /// Everything recorded, in order.
        var events: [Event] { state.withLock { $0.events } }

        /// The events of `kind`, in order.
        func events(_ kind: Event.Kind) -> [Event] { events.filter { $0.kind == kind } }

        /// The labels of the jobs that started, in order (a job run twice appears twice).
        var startedLabels: [String] { events(.started).map(\.label) }

        /// Whether a job labelled `label` has started.
        func hasStarted(_ label: String) -> Bool { events(.started).contains { $0.label == label } }

        /// Lets jobs that wait for cancellation (``TestInput/runsUntilCancelled``) finish normally instead.
        func releaseWaitingJobs() { state.withLock { $0.released = true } }

        var isReleased: Bool { state.withLock { $0.released } }
    }
#endif
