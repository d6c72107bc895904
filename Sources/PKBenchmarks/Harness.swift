import Dispatch
import Foundation
import Synchronization

/// One contender's measured repetitions for a workload.
struct Measurement {
    let contender: String
    var seconds: [Double] = []
    var median: Double {
        let sorted = seconds.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

/// A workload: a size, contenders run alternately in the same process, and a target over their medians.
struct Workload {
    let id: String
    let title: String
    let operations: Int
    let contenders: [(name: String, run: () -> Void)]
    /// Operations per contender where it differs from ``operations`` (contenders run at other sizes).
    var operationsByContender: [String: Int] = [:]
    /// Checks the target given each contender's median seconds; returns a description and whether it is met.
    let target: (_ medians: [String: Double]) -> (text: String, met: Bool)

    init(
        id: String, title: String, operations: Int, contenders: [(name: String, run: () -> Void)],
        operationsByContender: [String: Int] = [:],
        target: @escaping (_ medians: [String: Double]) -> (text: String, met: Bool)
    ) {
        self.id = id
        self.title = title
        self.operations = operations
        self.contenders = contenders
        self.operationsByContender = operationsByContender
        self.target = target
    }
}

/// Seconds taken by `body`.
func measure(_ body: () -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// Runs every contender of `workload` `repetitions` times, alternating contenders within each round, after one
/// unmeasured warm-up round (thread pools started, code paged in, heap grown) so no contender pays for that.
func run(_ workload: Workload, repetitions: Int) -> [Measurement] {
    for contender in workload.contenders { contender.run() }
    var results = workload.contenders.map { Measurement(contender: $0.name) }
    for _ in 0..<repetitions {
        for (index, contender) in workload.contenders.enumerated() {
            results[index].seconds.append(measure(contender.run))
        }
    }
    return results
}

/// Runs `body` on a detached Task and blocks until it returns, so async work runs off the main actor.
func blockingAsync(_ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        await body()
        done.signal()
    }
    done.wait()
}

/// Runs `body` on a detached Task, blocks until it returns, and returns its value.
func blockingAsyncValue<Value: Sendable>(_ body: @escaping @Sendable () async -> Value) -> Value {
    let returned = ReturnedValue<Value>()
    blockingAsync {
        let value = await body()
        returned.value.withLock { $0 = value }
    }
    guard let value = returned.value.withLock({ $0 }) else { preconditionFailure("the Task returned no value") }
    return value
}

/// Where ``blockingAsyncValue(_:)``'s Task leaves its value for the blocked thread.
private final class ReturnedValue<Value: Sendable>: Sendable {
    let value = Mutex<Value?>(nil)
}
