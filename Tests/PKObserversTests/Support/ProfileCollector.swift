import Dispatch
import Foundation
import PKCore
import PKObservers
import PKTesting
import Testing

/// A profiler reporter that keeps every result it is given, and lets a test wait for them.
final class ProfileCollector: ProcedureProfilerReporter {
    private let results = PKMutex<[ProfileResult]>([])
    private let arrived = DispatchSemaphore(value: 0)

    func finishedProfiling(withResult result: ProfileResult) {
        results.withLock { $0.append(result) }
        arrived.signal()
    }

    /// The results received so far.
    var received: [ProfileResult] { results.withLock { $0 } }

    /// Waits for `count` results in all; records an issue and returns what arrived if they do not come in time.
    func waitForResults(
        _ count: Int = 1, sourceLocation: SourceLocation = #_sourceLocation
    ) -> [ProfileResult] {
        while received.count < count {
            guard waitFor(arrived, "\(count) profile result(s)", sourceLocation: sourceLocation) else { break }
        }
        return received
    }
}
