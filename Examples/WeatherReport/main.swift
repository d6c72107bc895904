// Composition: results injected from one procedure into the next, inside a group, with a retry around a flaky
// step. Run it with `swift run WeatherReport`.
//
//   fetch (RetryProcedure: up to 4 attempts, the first two fail)
//     -> summarize (TransformProcedure, its input injected from the retry: the successful attempt's output)
//     -> format (TransformProcedure, input injected from summarize)
//   all three are children of one GroupProcedure; the output is read with `try await queue.run(_:)`.
import Foundation
import PKCore
import Synchronization

struct ServiceUnavailable: Error {}

/// Readings in degrees Celsius, as a remote service would return them.
struct Readings: Sendable {
    let city: String
    let temperatures: [Double]
}

/// A summary of the readings.
struct Summary: Sendable {
    let city: String
    let low: Double
    let high: Double
    let mean: Double
}

/// Counts calls so that the "service" can fail the first two.
let calls = Atomic<Int>(0)

// One attempt at fetching: a ResultProcedure whose block throws while the service is "down".
@Sendable func makeFetchAttempt() -> ResultProcedure<Readings> {
    ResultProcedure {
        let call = calls.add(1, ordering: .relaxed).newValue
        print("  fetch attempt \(call)")
        guard call > 2 else { throw ServiceUnavailable() }
        return Readings(city: "Lisbon", temperatures: [14.5, 17.0, 21.5, 19.0, 15.5])
    }
}

// Retry the fetch: at most 4 attempts, 10 ms apart. It stops at the first success.
let fetch = RetryProcedure(max: 4, wait: .constant(0.01)) { makeFetchAttempt() }
fetch.addDidFinishBlockObserver { retry, errors in
    print("fetch finished after \(retry.count) attempt(s), \(errors.count) error(s)")
}

// Summarize the readings of the attempt that succeeded.
let summarize = TransformProcedure<Readings, Summary> { readings in
    let values = readings.temperatures
    return Summary(
        city: readings.city, low: values.min() ?? .nan, high: values.max() ?? .nan,
        mean: values.reduce(0, +) / Double(values.count))
}
// A retry of output procedures is an output procedure too: its output is the successful attempt's. Had every
// attempt failed, `summarize` would be cancelled with a `ProcedureKitError` saying the dependency failed.
summarize.injectResult(from: fetch)

// Format the summary; `injectResult(from:)` passes the output straight through.
let format = TransformProcedure<Summary, String> { summary in
    String(
        format: "%@: low %.1f °C, high %.1f °C, mean %.1f °C", summary.city, summary.low, summary.high,
        summary.mean)
}
format.injectResult(from: summarize)

// The three run as one group; the group's observers see all of them finished.
let report = GroupProcedure(operations: fetch, summarize, format)
report.addWillFinishBlockObserver { group, errors, _ in
    print("report group finishing with \(errors.count) error(s)")
}

let queue = ProcedureQueue()
let done = DispatchSemaphore(value: 0)
Task.detached {
    do {
        try await queue.run(report)
        print("report: \(try format.output.value?.get() ?? "none")")
    } catch {
        print("report failed: \(error)")
    }
    done.signal()
}
done.wait()
