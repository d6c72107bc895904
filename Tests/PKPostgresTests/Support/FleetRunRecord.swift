#if Postgres
    import Foundation
    import PKTesting

    /// One DurableFleet worker process of a run.
    struct FleetWorker: Sendable {
        let name: String
        let child: ChildProcess
        /// Killed with SIGKILL by the run.
        var killed = false
        /// How it ended, once it has.
        var termination: ChildProcess.Termination?
    }

    /// What a run left behind, for ``FleetInvariants``.
    struct FleetRunRecord: Sendable {
        /// One job's row at the end.
        struct Job: Sendable {
            let id: Int64
            let state: String
            let attempt: Int
            let maxAttempts: Int
            /// The planned failing attempts (`failingAttempts` in its input).
            let failing: Int
            let errors: [String]
        }

        struct Report: Decodable, Sendable {
            let total: Int
            let states: [String: Int]
            let effects: Int
            let duplicateEffects: Int
            let orderViolations: Int
        }

        /// An attempt a worker held.
        struct Held: Sendable, Hashable {
            let job: Int64
            let attempt: Int
            let worker: String
        }

        var seed: UInt64 = 0
        var level: FleetLevel = .ci
        var jobs: [Job] = []
        var report: Report?
        /// (job id, worker) of every effect row.
        var effects: [(job: Int64, worker: String)] = []
        var workers: [FleetWorker] = []
        /// The attempts the killed workers held when they died (read once their connections had ended).
        var heldByKilled: Set<Held> = []
        /// Killed workers whose held attempts could not be read.
        var unread: Set<String> = []
        var kills = 0
        var terminations = 0
        /// Backends `pg_terminate_backend` ended.
        var terminatedBackends = 0
        var stops = 0
        var restarts = 0
        /// When the restart began, from the start of the run, and how long it took.
        var restartAt: TimeInterval = 0
        var restartTook: TimeInterval = 0
        var duration: TimeInterval = 0
        /// What the run did, in order, with times from its start.
        var events: [String] = []

        var summary: String {
            let planned = jobs.count { $0.failing >= $0.maxAttempts }
            return "seed \(seed) (replay with PK_FLEET_SEED=\(seed)), level \(level): \(jobs.count) jobs, \(planned) "
                + "planned to fail; \(kills) workers killed, \(stops) stopped, \(terminations) rounds of "
                + "pg_terminate_backend (\(terminatedBackends) connections), server restarted \(restarts)× at "
                + "\(Self.seconds(restartAt)) (took \(Self.seconds(restartTook))); \(Self.seconds(duration)) in all"
        }

        static func seconds(_ interval: TimeInterval) -> String {
            String(format: "%.1f s", interval)
        }
    }
#endif
