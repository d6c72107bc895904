// DurableFleet: durable procedures on PostgreSQL, run by a fleet of worker processes.
//
//   DurableFleet --database "<libpq connection string>" [--schema NAME] enqueue --jobs N [--dag] [--fail-rate P]
//                [--work-ms M] [--seed S] [--fail-attempts K] [--max-attempts A] [--doomed-rate D]
//                [--retry-wait-ms W]
//                [--queue Q] [--poison P]
//   DurableFleet --database ... work --worker NAME [--concurrency K] [--lease-ms L] [--log-starts]
//                [--queues a,b] [--tick-every-ms M]
//   DurableFleet --database ... heal
//   DurableFleet --database ... report [--json]
//
// `enqueue` prints "graph <id>". A job fails its first attempt with probability P, drawn when it runs; with
// --fail-attempts, a job picked with probability P fails its first 1 to K attempts instead, a plan drawn at enqueue
// and kept in its input; with --doomed-rate, a job nothing depends on may be planned to fail all of its A attempts
// (default 5). A failed attempt is retried after W ms (default 50). --seed makes the DAG and the plan the same for
// the same S. `work` prints "worker <name> ready" and runs until SIGTERM or SIGINT, then shuts down gracefully;
// with --log-starts, every job prints "start <job id> <attempt> <worker>" at once when its execute() begins.
// --queue puts the jobs in a named queue; --poison P makes a fraction P of them fail every attempt (with 2 attempts)
// until `heal` is run, after which they succeed (retry them with `pk-jobs retry --state failed`). `work --queues a,b`
// serves those named queues; `--tick-every-ms M` declares a periodic job (on the first of them) that records a tick
// keyed by its period every M ms, once per period across the fleet.
// `report --json` prints {"total":…,"states":{…},"effects":…,"duplicateEffects":…,"orderViolations":…,"ticks":…,
// "duplicateTicks":…}. Every
// demo job, when it completes, inserts one row into the demo effects table in its completing transaction:
// `duplicateEffects` counts jobs with more than one row (completion is exactly-once, so it stays 0 even when a
// killed worker's jobs run again) and `orderViolations` counts jobs whose effect came before one of their
// dependencies'. The effects table is the worker process's choice (`<schema>_demo.effects`, from the validated
// --schema), never a job input's. Exit status 64 for a bad command line, 69 without the Postgres trait.
import Foundation

#if Postgres
    import PKCore
    import PKObservers
    import PKPostgres

    let options: FleetOptions
    do {
        options = try FleetOptions.parse(Array(CommandLine.arguments.dropFirst()))
    } catch {
        FileHandle.standardError.write(Data("DurableFleet: \(error)\n\n\(FleetOptions.usage)\n".utf8))
        exit(64)
    }

    do {
        switch options.command {
        case .enqueue(let plan):
            try Fleet(options).enqueue(plan)
        case .work(let plan):
            try Fleet(options).work(plan)
        case .report(let json):
            try Fleet(options).report(json: json)
        case .heal:
            try Fleet(options).heal()
        }
    } catch {
        FileHandle.standardError.write(Data("DurableFleet: \(error)\n".utf8))
        exit(1)
    }
#else
    FileHandle.standardError.write(
        Data("DurableFleet: built without the Postgres trait; build with `swift build --traits Postgres`\n".utf8))
    exit(69)
#endif
