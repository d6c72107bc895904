#if Postgres
    import Foundation

    /// The command line.
    struct FleetOptions {
        enum Command {
            case enqueue(jobs: Int, dag: Bool, failRate: Double, workMilliseconds: Int)
            case work(worker: String, concurrency: Int, leaseMilliseconds: Int)
            case report(json: Bool)
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
              work --worker NAME [--concurrency K] [--lease-ms L]      run a worker until SIGTERM/SIGINT
              report [--json]                                           count jobs by state, effects, duplicates
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
            var dag = false
            var failRate = 0.0
            var workMilliseconds = 5
            var worker: String?
            var concurrency = 4
            var leaseMilliseconds = 30_000
            var json = false
            while let argument = rest.popFirst() {
                switch argument {
                case "--database": options.database = try value(argument)
                case "--schema": options.schema = try value(argument)
                case "--jobs": jobs = try number(argument, Int.self)
                case "--dag": dag = true
                case "--fail-rate": failRate = try number(argument, Double.self)
                case "--work-ms": workMilliseconds = try number(argument, Int.self)
                case "--worker": worker = try value(argument)
                case "--concurrency": concurrency = try number(argument, Int.self)
                case "--lease-ms": leaseMilliseconds = try number(argument, Int.self)
                case "--json": json = true
                case "enqueue", "work", "report":
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
                guard failRate >= 0, failRate <= 1 else { throw Problem(description: "--fail-rate is 0 to 1") }
                guard workMilliseconds >= 0, workMilliseconds <= 600_000 else {
                    throw Problem(description: "--work-ms is 0 to 600,000")
                }
                options.command = .enqueue(jobs: jobs, dag: dag, failRate: failRate, workMilliseconds: workMilliseconds)
            case "work":
                guard let worker, !worker.isEmpty else { throw Problem(description: "work needs --worker NAME") }
                options.command = .work(worker: worker, concurrency: concurrency, leaseMilliseconds: leaseMilliseconds)
            case "report":
                options.command = .report(json: json)
            default:
                throw Problem(description: "name a command: enqueue, work or report")
            }
            return options
        }
    }
#endif
