import Foundation
import PKCore
import PKTesting
import Testing

@testable import PKObservers

/// Learning that shutdown began without polling: `withShutdownHandler` (async and synchronous) and
/// `waitForShutdownRequest()`, on private coordinators.
struct ShutdownHandlerTests {

    // MARK: - withShutdownHandler

    @Test func theHandlerRunsOnceWhenShutdownIsRequestedDuringTheOperation() async {
        let (coordinator, _) = makeCoordinator()
        await confirmation("the handler runs", expectedCount: 1) { handled in
            await coordinator.withShutdownHandler {
                await Task.yield()
                coordinator.requestShutdown()
                coordinator.requestShutdown()
                coordinator.receive(signal: SIGTERM)
            } onShutdownRequested: {
                handled()
            }
        }
    }

    @Test func aHandlerAddedAfterTheRequestRunsAtOnceBeforeTheOperation() async {
        let (coordinator, _) = makeCoordinator()
        coordinator.requestShutdown()
        let log = StopLog()
        let result = await coordinator.withShutdownHandler {
            await Task.yield()
            log.append("operation")
            return 42
        } onShutdownRequested: {
            log.append("handler")
        }
        #expect(result == 42)
        #expect(log.entries == ["handler", "operation"])
    }

    @Test func aHandlerWhoseScopeEndedIsForgottenAndNeverCalled() async {
        let (coordinator, _) = makeCoordinator()
        await coordinator.withShutdownHandler {
            await Task.yield()
            #expect(coordinator.requestListenerCount == 1)
        } onShutdownRequested: {
            Issue.record("called after its scope ended")
        }
        #expect(coordinator.requestListenerCount == 0)
        coordinator.requestShutdown()
    }

    @Test func aScopeThatThrowsForgetsItsHandlerToo() async {
        let (coordinator, _) = makeCoordinator()
        await #expect(throws: ConnectionLost.self) {
            try await coordinator.withShutdownHandler {
                await Task.yield()
                throw ConnectionLost()
            } onShutdownRequested: {
                Issue.record("called after its scope ended")
            }
        }
        #expect(coordinator.requestListenerCount == 0)
        coordinator.requestShutdown()
    }

    @Test func theSynchronousFormHandlesTheRequestWithinItsScopeOnly() {
        let (coordinator, _) = makeCoordinator()
        let log = StopLog()
        let result = coordinator.withShutdownHandler {
            #expect(coordinator.requestListenerCount == 1)
            coordinator.requestShutdown()
            return "done"
        } onShutdownRequested: {
            log.append("handler")
        }
        #expect(result == "done")
        #expect(log.entries == ["handler"])
        #expect(coordinator.requestListenerCount == 0)
        coordinator.withShutdownHandler {
            log.append("operation")
        } onShutdownRequested: {
            log.append("late handler")
        }
        #expect(log.entries == ["handler", "late handler", "operation"])
    }

    @Test func aScopeEndingWhileItsHandlerRunsWaitsForTheHandlerToReturn() async {
        let (coordinator, _) = makeCoordinator()
        let log = StopLog()
        let handlerMayReturn = DispatchSemaphore(value: 0)
        let scope = Task {
            await coordinator.withShutdownHandler {
                await eventually("the handler runs") { log.entries == ["handler began"] }
                log.append("operation returned")
            } onShutdownRequested: {
                log.append("handler began")
                handlerMayReturn.wait()  // on the requesting thread, a thread of its own
                log.append("handler returned")
            }
            log.append("scope ended")
        }
        await eventually("the handler is registered") { coordinator.requestListenerCount == 1 }
        let request = Task { await onThreadOfItsOwn { coordinator.requestShutdown() } }
        await eventually("the operation returns") { log.entries.count == 2 }
        handlerMayReturn.signal()
        await scope.value
        await request.value
        #expect(log.entries == ["handler began", "operation returned", "handler returned", "scope ended"])
    }

    @Test func handlersAreToldBeforeAnyProcedureIsCancelled() async {
        let (coordinator, _) = makeCoordinator()
        let poller = UntilCancelledProcedure(name: "poller")
        poller.addObserver(BackgroundObserver(cancelProcedure: .whenShutdownRequested, coordinator: coordinator))
        ProcedureQueue().add(procedure: poller)
        await executing(poller)
        let log = StopLog()
        await coordinator.withShutdownHandler {
            await Task.yield()
            coordinator.requestShutdown()
        } onShutdownRequested: {
            log.append(poller.isCancelled ? "cancelled already" : "told first")
        }
        #expect(log.entries == ["told first"])
        #expect(poller.isCancelled)
        await finished(poller)
    }

    // MARK: - waitForShutdownRequest

    @Test func waitingForTheRequestReturnsItsReasonAsShutdownBegins() async throws {
        let (coordinator, _) = makeCoordinator()
        let holder = StubbornProcedure(name: "holder")
        holder.addObserver(BackgroundObserver(coordinator: coordinator))
        let wait = Task { try await coordinator.waitForShutdownRequest() }
        await eventually("the wait listens") { coordinator.requestListenerCount == 1 }
        coordinator.receive(signal: SIGTERM)
        #expect(try await wait.value == .signal(SIGTERM))
        #expect(coordinator.phase == .shuttingDown)  // the holder keeps shutdown open: this was its beginning
        // Once requested, a wait returns at once.
        #expect(try await coordinator.waitForShutdownRequest() == .signal(SIGTERM))
        holder.release()
        ProcedureQueue().add(procedure: holder)
        #expect(await report(of: coordinator)?.finishedDuringGracePeriod == ["holder"])
    }

    @Test func aCancelledWaitForTheRequestThrowsAndLeavesNothingBehind() async {
        let (coordinator, _) = makeCoordinator()
        let wait = Task { try await coordinator.waitForShutdownRequest() }
        await eventually("the wait listens") { coordinator.requestListenerCount == 1 }
        wait.cancel()
        await #expect(throws: CancellationError.self) { try await wait.value }
        #expect(coordinator.requestListenerCount == 0)
        #expect(coordinator.phase == .running)
    }

    @Test func aWaitInACancelledTaskThrowsAtOnce() async {
        let (coordinator, _) = makeCoordinator()
        let wait = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await coordinator.waitForShutdownRequest()
        }
        await #expect(throws: CancellationError.self) { try await wait.value }
        #expect(coordinator.requestListenerCount == 0)
    }
}
