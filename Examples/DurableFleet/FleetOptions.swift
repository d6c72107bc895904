#if Postgres
    import Foundation

    /// The command line.
    struct FleetOptions {
        enum Command {
            case enqueue(EnqueuePlan)
            case work(WorkPlan)
            case report(json: Bool)
            case heal
        }

        /// What `enqueue` makes.
        struct EnqueuePlan {
            var jobs = 0
            /// A random DAG rather than independent jobs.
            var dag = false
            /// The chance that a job fails: its first attempt, drawn when it runs; with ``failAttempts``, a number
            /// of attempts planned now.
            var failRate = 0.0
            var workMilliseconds = 5
            /// Makes the DAG and the planned failures reproducible.
            var seed: UInt64?
            /// When set, a job picked with ``failRate`` fails its first 1 to this many attempts (drawn now and kept
            /// in its input).
            var failAttempts: Int?
            /// Each job's most attempts.
            var maxAttempts = 5
            /// How long a failed job waits before its next attempt.
            var retryWaitMilliseconds = 50
            /// The chance that a job no other job depends on fails every attempt (planned now, so it ends failed).
            var doomedRate = 0.0
            /// The named queue the jobs wait in.
            var queue = "default"
            /// The chance that a job is poisoned: it fails every attempt (with 2 attempts) until `heal` is run.
            var poisonRate = 0.0
            /// Text stored in each job's input (`label`), shown on the job's page of the dashboard.
            var label: String?
        }

        /// What `work` runs.
        struct WorkPlan {
            var worker = ""
            var concurrency = 4
            var leaseMilliseconds = 30_000
            var logStarts = false
            /// The named queues the worker serves.
            var queues = ["default"]
            /// When set, the worker declares the periodic tick job, due every this many milliseconds.
            var tickMilliseconds: Int?
        }

        struct Problem: Error, CustomStringConvertible {
            let description: String
        }

        var database = ""
        var schema = "durable_fleet"
        var command: Command = .report(json: false)

        static let usage = """
            usage: DurableFleet --database <libpq connection string> [--schema NAME] <command>
              enqueue --jobs N [--dag] [--fail-rate P] [--work-ms M]   enqueue N demo jobs (a random DAG with --dag)
                      [--seed S] [--fail-attempts K] [--max-attempts A] [--doomed-rate D] [--retry-wait-ms W]
                      [--queue Q] [--poison P] [--label TEXT]
                        --queue: the named queue the jobs wait in (default "default")
                        --label: text stored in each job's input, shown on the job's page of the dashboard
                        --poison: a fraction P of the jobs fails every attempt (2 attempts) until `heal` runs
                        --seed: the same DAG and planned failures for the same S
                        --fail-attempts: a job picked with P fails its first 1 to K attempts (planned now; K < A)
                        --max-attempts: each job's most attempts (default 5)
                        --doomed-rate: the chance that a job nothing depends on fails every attempt
                        --retry-wait-ms: how long a failed job waits before its next attempt (default 50)
              work --worker NAME [--concurrency K] [--lease-ms L]      run a worker until SIGTERM/SIGINT
                   [--log-starts]                                       print "start <job> <attempt> <worker>" as
                                                                          each job begins
                   [--queues a,b] [--tick-every-ms M]                   the named queues it serves; a periodic job
                                                                          recording a tick every M ms
              heal                                                      poisoned jobs succeed from now on
              report [--json]                                           count jobs by state, effects, duplicates,
                                                                          ticks and duplicate ticks
            """

        static func parse(_ arguments: [String]) throws -> FleetOptions {
            var options = FleetOptions()
            var rest = arguments[...]
            func value(_ flag: String) throws -> String {
                guard let next = rest.popFirst() else { throw Problem(description: "\(flag) needs a value") }
                return next
            }
            func number<T: LosslessStringConvertible>(_ flag: String, _: T.Type) throws -> T {
                let text = try value(flag)
                guard let number = T(text) else { throw Problem(description: "\(flag): \(text) is not a number") }
                return number
            }
            var commandName: String?
            var jobs: Int?
            var plan = EnqueuePlan()
            var work = WorkPlan()
            var worker: String?
            var json = false
            while let argument = rest.popFirst() {
                switch argument {
                case "--database": options.database = try value(argument)
                case "--schema": options.schema = try value(argument)
                case "--jobs": jobs = try number(argument, Int.self)
                case "--dag": plan.dag = true
                case "--fail-rate": plan.failRate = try number(argument, Double.self)
                case "--work-ms": plan.workMilliseconds = try number(argument, Int.self)
                case "--seed": plan.seed = try number(argument, UInt64.self)
                case "--fail-attempts": plan.failAttempts = try number(argument, Int.self)
                case "--max-attempts": plan.maxAttempts = try number(argument, Int.self)
                case "--doomed-rate": plan.doomedRate = try number(argument, Double.self)
                case "--retry-wait-ms": plan.retryWaitMilliseconds = try number(argument, Int.self)
                case "--queue": plan.queue = try value(argument)
                case "--poison": plan.poisonRate = try number(argument, Double.self)
                case "--label": plan.label = try value(argument)
                case "--worker": worker = try value(argument)
                case "--concurrency": work.concurrency = try number(argument, Int.self)
                case "--lease-ms": work.leaseMilliseconds = try number(argument, Int.self)
                case "--log-starts": work.logStarts = true
                case "--queues":
                    work.queues = try value(argument).split(separator: ",", omittingEmptySubsequences: false)
                        .map(String.init)
                case "--tick-every-ms":
                    let milliseconds = try number(argument, Int.self)
                    guard milliseconds >= 10, milliseconds <= 86_400_000 else {
                        throw Problem(description: "--tick-every-ms is 10 to 86,400,000")
                    }
                    work.tickMilliseconds = milliseconds
                case "--json": json = true
                case "enqueue", "work", "report", "heal":
                    guard commandName == nil else { throw Problem(description: "one command at a time") }
                    commandName = argument
                default: throw Problem(description: "unknown argument \(argument)")
                }
            }
            guard !options.database.isEmpty else { throw Problem(description: "--database is required") }
            switch commandName {
            case "enqueue":
                guard let jobs, jobs >= 1, jobs <= 1_000_000 else {
                    throw Problem(description: "enqueue needs --jobs between 1 and 1,000,000")
                }
                plan.jobs = jobs
                try plan.validate()
                options.command = .enqueue(plan)
            case "work":
                guard let worker, !worker.isEmpty else { throw Problem(description: "work needs --worker NAME") }
                guard !work.queues.isEmpty, work.queues.allSatisfy({ !$0.isEmpty }) else {
                    throw Problem(description: "--queues takes names separated by commas")
                }
                work.worker = worker
                options.command = .work(work)
            case "report":
                options.command = .report(json: json)
            case "heal":
                options.command = .heal
            default:
                throw Problem(description: "name a command: enqueue, work, heal or report")
            }
            return options
        }
    }

    extension FleetOptions.EnqueuePlan {
        func validate() throws {
            typealias Problem = FleetOptions.Problem
            guard failRate >= 0, failRate <= 1 else { throw Problem(description: "--fail-rate is 0 to 1") }
            guard workMilliseconds >= 0, workMilliseconds <= 600_000 else {
                throw Problem(description: "--work-ms is 0 to 600,000")
            }
            guard maxAttempts >= 1, maxAttempts <= 100 else { throw Problem(description: "--max-attempts is 1 to 100") }
            if let failAttempts {
                guard failAttempts >= 1, failAttempts < maxAttempts else {
                    throw Problem(
                        description:
                            "--fail-attempts is 1 to one less than --max-attempts (so that the job can complete)")
                }
            }
            guard doomedRate >= 0, doomedRate <= 1 else { throw Problem(description: "--doomed-rate is 0 to 1") }
            guard poisonRate >= 0, poisonRate <= 1 else { throw Problem(description: "--poison is 0 to 1") }
            if let label {
                guard label.utf8.count <= 1_000, !label.utf8.contains(0) else {
                    throw Problem(description: "--label is at most 1,000 bytes, without U+0000")
                }
            }
            guard retryWaitMilliseconds >= 0, retryWaitMilliseconds <= 600_000 else {
                throw Problem(description: "--retry-wait-ms is 0 to 600,000")
            }
        }
    }
#endif
