import Foundation
import PKCore
import PKObservers
import PKTesting

// The code samples of the article "Graceful shutdown on Linux" (PKObservers.docc/GracefulShutdown.md), kept here
// so that they compile; keep the two in step. Never called: the first handles SIGTERM and blocks.

/// Consumes messages until it is cancelled.
private final class ConsumerProcedure: Procedure, @unchecked Sendable {
    override func execute() {
        // Start consuming; a real consumer keeps a connection open here.
    }

    override func procedureDidCancel(withErrors errors: [any Error]) {
        // Stop taking new messages, acknowledge the ones in hand, then:
        finish()
    }
}

@available(*, noasync)
private func articleServiceMain() -> Never {
    let coordinator = ShutdownCoordinator.shared
    coordinator.gracePeriod = .seconds(20)  // within Kubernetes' 30 seconds
    coordinator.cancellationPeriod = .seconds(5)
    coordinator.handleSignals([SIGTERM, SIGINT])

    // Finish the upload if at all possible.
    let upload = BlockProcedure { print("uploading the pending changes") }
    upload.addObserver(BackgroundObserver())

    // Stop consuming as soon as shutdown begins.
    let consumer = ConsumerProcedure()
    consumer.addObserver(BackgroundObserver(cancelProcedure: .whenShutdownRequested))

    let queue = ProcedureQueue()
    queue.add(procedures: upload, consumer)

    // Blocks until a signal arrives and the shutdown is over.
    let report = coordinator.syncWaitForShutdown()
    print(report)
    exit(report.isComplete ? 0 : 1)
}

private func articleAsyncShutdown() async throws -> ShutdownReport {
    let report = try await ShutdownCoordinator.shared.shutdownGracefully(timeout: .seconds(5))
    return report
}

private typealias MyJob = ConsumerProcedure

private func articleTesting(queue: ProcedureQueue) async throws -> ShutdownReport {
    let clock = ManualClock()
    let coordinator = ShutdownCoordinator(gracePeriod: .seconds(10), clock: clock)
    let job = MyJob()
    job.addObserver(BackgroundObserver(cancelProcedure: .whenGracePeriodExpires, coordinator: coordinator))
    queue.add(procedure: job)

    coordinator.requestShutdown()
    clock.advance(by: .seconds(10))  // the grace period expires: job is cancelled
    let report = try await coordinator.waitForShutdown()
    return report
}
