import Foundation

/// `pk-jobs`'s command line, parsed without touching the database. Global options (`--database`, `--schema`) may
/// come anywhere; every problem is a ``UsageError`` (exit status 2), whose message never repeats the connection
/// string.
struct JobsCommandLine: Equatable {
    enum Command: Equatable {
        case migrate
        case stats
        case list(states: [String], kinds: [String], queues: [String], limit: Int)
        case show(Int64)
        case retry([Int64])
        case retryMatching(states: [String], kinds: [String], queues: [String])
        case cancel([Int64])
        case delete([Int64])
        case prune(state: String, olderThanSeconds: Double)
        case pause(String)
        case resume(String)
        case serve(bind: String, port: Int, readOnly: Bool)
    }

    struct UsageError: Error, CustomStringConvertible, Equatable {
        let description: String
    }

    var database: String
    var schema: String
    var json: Bool
    var command: Command

    static let states = ["blocked", "available", "running", "completed", "failed", "cancelled"]
    static let finishedStates = ["completed", "failed", "cancelled"]

    static let usage = """
        usage: pk-jobs --database CONN [--schema NAME] COMMAND [--json]

        commands:
          migrate                                   create or migrate the schema (idempotent)
          stats                                     jobs by queue and state, and the paused queues
          list [--state S] [--kind K] [--queue Q] [--limit N]
                                                    jobs by id (each option may repeat; N is 1-10000, default 100)
          show ID                                   one job with its input, output and attempt history
          retry ID...                               run failed or cancelled jobs again
          retry --state S [--kind K] [--queue Q]    retry every failed (or cancelled) job matching
          cancel ID...                              cancel jobs (a running one is cancelled by its worker)
          delete ID...                              delete jobs that are not running and nothing waits for
          prune --state S --older-than SECONDS      delete jobs in a final state that finished that long ago (0: all)
          pause QUEUE | resume QUEUE                stop or restart claims from a named queue, fleet-wide
          serve [--bind ADDR] [--port P] [--read-only]
                                                    the dashboard and its JSON API (default 127.0.0.1:8080); prints
                                                    its URL. PK_JOBS_TOKEN sets the access token (needed off
                                                    loopback); open URL/?token=TOKEN once in a browser

        CONN is a libpq connection string (postgresql://user@host/db or key=value pairs); the schema defaults to
        procedurekit. Output is JSON on standard output; exit status 0 on success, 1 on failure, 2 on bad usage.
        """

    static func parse(_ arguments: [String]) throws(UsageError) -> JobsCommandLine {
        var database: String?
        var schema = "procedurekit"
        var json = false
        var states: [String] = []
        var kinds: [String] = []
        var queues: [String] = []
        var limit: Int?
        var olderThan: Double?
        var bind: String?
        var port: Int?
        var readOnly = false
        var words: [String] = []
        var index = 0
        func value(_ option: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                throw UsageError(description: "\(option) needs a value")
            }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--database": database = try value(argument)
            case "--schema": schema = try value(argument)
            case "--json": json = true
            case "--state":
                let state = try value(argument)
                guard states.count < 10, Self.states.contains(state) else {
                    throw UsageError(
                        description: "--state must be one of \(Self.states.joined(separator: ", ")), not \"\(state)\"")
                }
                states.append(state)
            case "--kind": kinds.append(try value(argument))
            case "--queue": queues.append(try value(argument))
            case "--limit":
                let text = try value(argument)
                guard let number = Int(text), (1...10_000).contains(number) else {
                    throw UsageError(description: "--limit must be a whole number from 1 to 10000, not \"\(text)\"")
                }
                limit = number
            case "--older-than":
                let text = try value(argument)
                guard let seconds = Double(text), seconds.isFinite, seconds >= 0, seconds <= 9e10 else {
                    throw UsageError(
                        description: "--older-than must be a number of seconds, 0 or more, not \"\(text)\"")
                }
                olderThan = seconds
            case "--bind": bind = try value(argument)
            case "--port":
                let text = try value(argument)
                guard let number = Int(text), (0...65_535).contains(number) else {
                    throw UsageError(description: "--port must be a whole number from 0 to 65535, not \"\(text)\"")
                }
                port = number
            case "--read-only": readOnly = true
            case "--help", "-h":
                throw UsageError(description: "")
            default:
                guard !argument.hasPrefix("--") else { throw UsageError(description: "unknown option \(argument)") }
                words.append(argument)
            }
            index += 1
        }
        guard let database, !database.isEmpty else { throw UsageError(description: "--database is required") }
        guard let name = words.first else { throw UsageError(description: "a command is required") }
        let operands = Array(words.dropFirst())
        func refuse(_ options: [(String, Bool)]) throws(UsageError) {
            for (option, given) in options where given {
                throw UsageError(description: "\(option) does not apply to \(name)")
            }
        }
        func noOperands() throws(UsageError) {
            guard operands.isEmpty else {
                throw UsageError(description: "\(name) takes no arguments, not \(operands.joined(separator: " "))")
            }
        }
        if name != "serve" {
            try refuse([("--bind", bind != nil), ("--port", port != nil), ("--read-only", readOnly)])
        }
        let command: Command
        switch name {
        case "serve":
            try noOperands()
            try refuse([
                ("--state", !states.isEmpty), ("--kind", !kinds.isEmpty), ("--queue", !queues.isEmpty),
                ("--limit", limit != nil), ("--older-than", olderThan != nil),
            ])
            command = .serve(bind: bind ?? "127.0.0.1", port: port ?? 8_080, readOnly: readOnly)
        case "migrate", "stats":
            try noOperands()
            try refuse([
                ("--state", !states.isEmpty), ("--kind", !kinds.isEmpty), ("--queue", !queues.isEmpty),
                ("--limit", limit != nil), ("--older-than", olderThan != nil),
            ])
            command = name == "migrate" ? .migrate : .stats
        case "list":
            try noOperands()
            try refuse([("--older-than", olderThan != nil)])
            command = .list(states: states, kinds: kinds, queues: queues, limit: limit ?? 100)
        case "show":
            try refuse([
                ("--state", !states.isEmpty), ("--kind", !kinds.isEmpty), ("--queue", !queues.isEmpty),
                ("--limit", limit != nil), ("--older-than", olderThan != nil),
            ])
            let ids = try Self.ids(operands, for: name)
            guard ids.count == 1 else { throw UsageError(description: "show takes one job id") }
            command = .show(ids[0])
        case "retry":
            try refuse([("--limit", limit != nil), ("--older-than", olderThan != nil)])
            if operands.isEmpty {
                guard !states.isEmpty else {
                    throw UsageError(description: "retry needs job ids, or --state failed or --state cancelled")
                }
                guard states.allSatisfy({ $0 == "failed" || $0 == "cancelled" }) else {
                    throw UsageError(description: "only failed and cancelled jobs are retried")
                }
                command = .retryMatching(states: states, kinds: kinds, queues: queues)
            } else {
                try refuse([("--state", !states.isEmpty), ("--kind", !kinds.isEmpty), ("--queue", !queues.isEmpty)])
                command = .retry(try Self.ids(operands, for: name))
            }
        case "cancel", "delete":
            try refuse([
                ("--state", !states.isEmpty), ("--kind", !kinds.isEmpty), ("--queue", !queues.isEmpty),
                ("--limit", limit != nil), ("--older-than", olderThan != nil),
            ])
            let ids = try Self.ids(operands, for: name)
            command = name == "cancel" ? .cancel(ids) : .delete(ids)
        case "prune":
            try noOperands()
            try refuse([("--kind", !kinds.isEmpty), ("--queue", !queues.isEmpty), ("--limit", limit != nil)])
            guard states.count == 1, let state = states.first else {
                throw UsageError(description: "prune needs one --state")
            }
            guard Self.finishedStates.contains(state) else {
                throw UsageError(description: "only completed, failed and cancelled jobs are pruned, not \(state) ones")
            }
            guard let olderThan else { throw UsageError(description: "prune needs --older-than SECONDS") }
            command = .prune(state: state, olderThanSeconds: olderThan)
        case "pause", "resume":
            try refuse([
                ("--state", !states.isEmpty), ("--kind", !kinds.isEmpty), ("--queue", !queues.isEmpty),
                ("--limit", limit != nil), ("--older-than", olderThan != nil),
            ])
            guard operands.count == 1 else { throw UsageError(description: "\(name) takes one queue name") }
            command = name == "pause" ? .pause(operands[0]) : .resume(operands[0])
        default:
            throw UsageError(description: "unknown command \"\(name)\"")
        }
        return JobsCommandLine(database: database, schema: schema, json: json, command: command)
    }

    /// Job ids: at least one, each a positive whole number, at most 10,000.
    private static func ids(_ operands: [String], for command: String) throws(UsageError) -> [Int64] {
        guard !operands.isEmpty else { throw UsageError(description: "\(command) needs at least one job id") }
        guard operands.count <= 10_000 else { throw UsageError(description: "at most 10000 job ids at once") }
        var ids: [Int64] = []
        for operand in operands {
            guard let id = Int64(operand), id > 0 else {
                throw UsageError(description: "a job id is a positive whole number, not \"\(operand)\"")
            }
            ids.append(id)
        }
        return ids
    }
}
