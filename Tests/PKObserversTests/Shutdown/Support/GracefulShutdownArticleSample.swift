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
    let coordinator = ShutdownCoordinator(
        gracePeriod: .seconds(20),  // within Kubernetes' 30 seconds
        cancellationPeriod: .seconds(5), systemdNotifier: SystemdNotifier())
    coordinator.handleSignals([SIGTERM, SIGINT])

    // Finish the upload if at all possible.
    let upload = BlockProcedure { print("uploading the pending changes") }
    upload.addObserver(BackgroundObserver(coordinator: coordinator))

    // Stop consuming as soon as shutdown begins; if the consumer fails, shut the rest down.
    let consumer = ConsumerProcedure()
    consumer.addObserver(
        BackgroundObserver(
            cancelProcedure: .whenShutdownRequested, requestsShutdownOnFailure: true, coordinator: coordinator))

    let queue = ProcedureQueue()
    queue.add(procedures: upload, consumer)

    // Flush the metrics last, once everything else has stopped.
    coordinator.addParticipant(named: "metrics", stopOrder: 1) { print("flushing the metrics") }

    // Blocks until a signal arrives and the shutdown is over.
    let report = coordinator.syncWaitForShutdown()
    print(report)
    exit(report.isComplete && report.failures.isEmpty ? 0 : 1)
}

private func articleAsyncShutdown(coordinator: ShutdownCoordinator) async throws -> ShutdownReport {
    let report = try await coordinator.shutdownGracefully(timeout: .seconds(5))
    return report
}

// "Stopping the parts of a program in order" and "Learning that shutdown began".

/// Stand-ins for the parts the article's snippets stop.
private final class ArticleParts: Sendable {
    func close() async {}
    func drain() async throws {}
    func flush() async {}
}

private struct Connection: Sendable {}

private func serve(_ connection: Connection) async {}

private func articleParticipants(coordinator: ShutdownCoordinator, queue: ProcedureQueue) {
    let (pool, server, metrics) = (ArticleParts(), ArticleParts(), ArticleParts())
    coordinator.addParticipant(named: "database") { await pool.close() }
    coordinator.addParticipant(named: "http") { try await server.drain() }
    coordinator.addParticipant(named: "metrics", stopOrder: 1) { await metrics.flush() }
    // On shutdown: http, then database, then metrics.

    coordinator.addParticipant(named: "jobs") {
        queue.cancelAllOperations()
        await queue.allOperationsFinished()
    }
}

private func articleHandlers(coordinator: ShutdownCoordinator) async throws {
    let (connections, intake) = AsyncStream.makeStream(of: Connection.self)
    await coordinator.withShutdownHandler {
        for await connection in connections { await serve(connection) }
    } onShutdownRequested: {
        intake.finish()  // stop accepting; the loop ends once the connections in hand are served
    }

    let reason = try await coordinator.waitForShutdownRequest()
    print("shutting down: \(reason)")
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
