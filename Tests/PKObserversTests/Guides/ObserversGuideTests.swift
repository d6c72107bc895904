import Foundation
import PKCore
import PKObservers
import PKTesting
import Testing

// The code of PKObservers' articles "Observers" (PKObservers.docc/Observers.md) and "Profiling"
// (PKObservers.docc/Profiling.md), and one of "Graceful shutdown" (PKObservers.docc/GracefulShutdown.md), as written
// there, so that it compiles and, but for the traces written to the working directory and the signal handling, runs:
// keep them in step (Scripts/docs.sh checks that every example of the catalogue is in a test). The procedures the
// examples assume are defined first.

private final class DownloadProcedure: ResultProcedure<Data>, @unchecked Sendable {
    init(url: URL) { super.init { Data(url.path.utf8) } }
}

private final class FetchProcedure: Procedure, @unchecked Sendable {
    override func execute() { finish() }
}

// "Network activity"

private final class StatusGauge: NetworkActivityIndicatorProtocol, @unchecked Sendable {
    // @unchecked Sendable: written only on the controller's queue.
    var isNetworkActivityIndicatorVisible = false {
        didSet { print(isNetworkActivityIndicatorVisible ? "busy" : "idle") }
    }
}

/// Profiling.md's "Recording a trace". Not run: it writes `trace.json` and `threads.json` into the working directory.
private func recordATrace(on queue: ProcedureQueue) throws {
    let recorder = TraceRecorder(name: "Importer")
    queue.addObserver(recorder)
    // … run the work …
    try recorder.writeTrace(to: URL(fileURLWithPath: "trace.json"))
    // The two layouts:
    try recorder.writeTrace(to: URL(fileURLWithPath: "trace.json"))  // a lane per procedure
    try recorder.writeTrace(to: URL(fileURLWithPath: "threads.json"), lanes: .perThread)  // a lane per thread
}

/// The library type of GracefulShutdown.md's "One coordinator per program, passed around".
private final class JobRunner: Sendable {
    let shutdownCoordinator: ShutdownCoordinator
    init(shutdownCoordinator: ShutdownCoordinator) { self.shutdownCoordinator = shutdownCoordinator }
}

/// GracefulShutdown.md's "One coordinator per program, passed around" (the article's other examples are in
/// Shutdown/Support/GracefulShutdownArticleSample.swift). Not run: it handles SIGTERM and SIGINT.
@available(*, noasync)
private func oneCoordinatorPerProgram() -> JobRunner {
    let coordinator = ShutdownCoordinator(
        gracePeriod: .seconds(20), cancellationPeriod: .seconds(5), systemdNotifier: SystemdNotifier())
    coordinator.handleSignals([SIGTERM, SIGINT])
    let jobs = JobRunner(shutdownCoordinator: coordinator)  // a library's type
    return jobs
}

/// "Network activity": a controller that only counts.
private func countsOnly() -> NetworkActivityController {
    let activity = NetworkActivityController()  // attach NetworkObserver(controller: activity), then read the counts
    return activity
}

@Suite(.timeLimit(.minutes(1)))
struct ObserversGuideTests {

    @Test func startedAndFinishedObservers() async {
        let operation = BlockProcedure { print("working") }
        operation.addObserver(
            StartedObserver { op in
                print("Lets go!")
            })
        operation.addObserver(
            FinishedObserver { op, errors in
                print("\(op.procedureName) finishing with \(errors.count) errors")
            })
        ProcedureQueue().add(procedure: operation)
        // End of the article's example.
        await operation.waitUntilFinished()
        PKExpectProcedureFinished(operation)
    }

    @Test func timeLimits() async throws {
        let queue = ProcedureQueue()
        let url = URL(fileURLWithPath: "/report")
        let download = DownloadProcedure(url: url)
        download.addObserver(TimeoutObserver(by: .seconds(30)))
        // or, in one line:
        queue.add(procedure: download.timeout(after: .seconds(30)))
        // or, awaiting it:
        let data = try await queue.run(DownloadProcedure(url: url), timeout: .seconds(30))
        // End of the article's example.
        #expect(data == Data("/report".utf8))
        await download.waitUntilFinished()
        PKExpectProcedureFinished(download)
    }

    @Test func networkActivity() async {
        let controller = NetworkActivityController(timerInterval: 1, indicator: StatusGauge())
        let fetch = FetchProcedure()
        fetch.addObserver(NetworkObserver(controller: controller))
        // End of the article's example.
        ProcedureQueue().add(procedure: fetch)
        await fetch.waitUntilFinished()
        #expect(countsOnly().inFlightCount == 0)
    }

    @Test func profilingAGroup() async {
        let queue = ProcedureQueue()
        let (download, decode, store) = (BlockProcedure {}, BlockProcedure {}, BlockProcedure {})
        let importer = GroupProcedure(operations: [download, decode, store])
        importer.addObserver(ProcedureProfiler())  // reports to a ProcedureProfileLogger
        queue.add(procedure: importer)
        // End of the article's example.
        await importer.waitUntilFinished()
        PKExpectProcedureFinished(importer)
    }
}
