// ServerQuickstart: the short way to use ProcedureKit from async server code, with no subclass and no network.
// Run it with `swift run ServerQuickstart`; it finishes in about a second.
//
//   1. A pipeline: load -> three transforms (AsyncTransformProcedures with async closures, running in parallel,
//      each injected with the load's output) -> combine (`gathered()`), awaited with `try await queue.run(_:)`.
//      Run a second time with a failing transform: the caller gets one error, whose root cause is the transform's.
//   2. A bounded fan-out: 20 jobs, at most 4 at a time, each with a 1 s timeout (`timeout(after:)`, PKObservers'
//      TimeoutObserver), read with `for await outcome in queue.outcomes(of:)` as they finish (so the order of those
//      lines varies). Four jobs fail and three hang on purpose; `error.isTimeout` tells the hung ones apart.
import Foundation
import PKCore
import PKObservers

struct Order: Sendable {
    let id: Int
    let amount: Int
}

struct LookupFailed: Error, CustomStringConvertible {
    var description: String { "the currency service is down" }
}

let queue = ProcedureQueue()

// MARK: - 1. load -> transform x3 -> combine

/// Loads the orders, works out three figures from them at once, and combines the figures into one line.
func report(failingLookup: Bool) async throws -> String {
    let load = AsyncResultProcedure<[Order]> {
        try await Task.sleep(for: .milliseconds(10))  // a database query, say
        return (1...10).map { Order(id: $0, amount: $0 * 5) }
    }
    let figures = [
        AsyncTransformProcedure<[Order], String> { orders in "\(orders.count) orders" },
        AsyncTransformProcedure<[Order], String> { orders in "total \(orders.reduce(0) { $0 + $1.amount })" },
        AsyncTransformProcedure<[Order], String> { orders in
            try await Task.sleep(for: .milliseconds(10))  // a currency service, say
            if failingLookup { throw LookupFailed() }
            return "largest \(orders.map(\.amount).max() ?? 0) EUR"
        },
    ]
    for figure in figures { figure.injectResult(from: load) }
    let combine = TransformProcedure<[String], String> { $0.joined(separator: ", ") }
    let gathered = figures.gathered()  // outputs the figures in order, once all three have succeeded
    combine.injectResult(from: gathered)

    // `run` adds only the procedure it is given: add everything it waits for first.
    queue.add(procedures: load, figures[0], figures[1], figures[2], gathered)
    return try await queue.run(combine)
}

print(try await report(failingLookup: false))
do {
    _ = try await report(failingLookup: true)
} catch {
    // The failure travels as "a dependency failed" wrappers; `rootCauses` unwraps them.
    print("report failed: \(error.rootCauses), dependency failure: \(error.isDependencyFailure)")
}

// MARK: - 2. bounded fan-out

struct Declined: Error {
    let job: Int
}

queue.maxConcurrentOperationCount = 4
let jobs = (0..<20).map { job in
    AsyncResultProcedure<Int> {
        if job % 7 == 3 { try await Task.sleep(for: .seconds(3600)) }  // jobs 3, 10 and 17 hang
        if job % 5 == 4 { throw Declined(job: job) }  // jobs 4, 9, 14 and 19 fail
        return job * job
    }
    .timeout(after: .seconds(1))  // cancels the procedure, and so its Task, with a timeout error
}

var succeeded = 0
var timedOut: [Int] = []
var failed: [Int] = []
for await outcome in queue.outcomes(of: jobs) {
    switch outcome.result {
    case .success(let square):
        succeeded += 1
        print("job \(outcome.index): \(square)")
    case .failure(let error) where error.isTimeout:
        timedOut.append(outcome.index)
        print("job \(outcome.index): timed out")
    case .failure(let error):
        failed.append(outcome.index)
        print("job \(outcome.index): failed (\(error))")
    }
}
print("\(succeeded) succeeded, timed out: \(timedOut.sorted()), failed: \(failed.sorted())")
