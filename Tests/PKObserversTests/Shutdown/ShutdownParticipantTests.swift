import Foundation
import PKCore
import PKTesting
import Testing

@testable import PKObservers

/// Participants on private coordinators: stopped one at a time in stop order, held to the coordinator's periods,
/// reported, removed, and failing.
struct ShutdownParticipantTests {

    // MARK: - Order

    @Test func participantsStopOneAtATimeTheMostRecentlyAddedFirst() async {
        let (coordinator, _) = makeCoordinator()
        let log = StopLog()
        for name in ["database", "cache", "http"] {
            coordinator.addParticipant(named: name, stop: log.stop(name, until: .released))
        }
        coordinator.requestShutdown()
        await eventually("http begins") { log.entries == ["begin http"] }
        log.release("http")
        await eventually("cache begins once http has stopped") {
            log.entries == ["begin http", "end http", "begin cache"]
        }
        #expect(coordinator.phase == .shuttingDown)
        log.release("cache")
        await eventually("database begins once cache has stopped") { log.entries.count == 5 }
        #expect(log.entries.last == "begin database")
        log.release("database")
        let report = await report(of: coordinator)
        #expect(report?.participants == ["http", "cache", "database"].map { .init(name: $0, outcome: .stopped) })
        #expect(report?.isComplete == true)
        #expect(coordinator.participantCount == 0)
    }

    @Test func anExplicitStopOrderComesBeforeTheOrderOfAdding() async {
        let (coordinator, _) = makeCoordinator()
        let log = StopLog()
        coordinator.addParticipant(named: "metrics", stopOrder: 1, stop: log.stop("metrics"))
        coordinator.addParticipant(named: "database", stop: log.stop("database"))
        coordinator.addParticipant(named: "ingress", stopOrder: -1, stop: log.stop("ingress"))
        coordinator.addParticipant(named: "cache", stop: log.stop("cache"))
        let report = try? await coordinator.shutdownGracefully()
        #expect(report?.participants.map(\.name) == ["ingress", "cache", "database", "metrics"])
        #expect(
            log.entries == ["ingress", "cache", "database", "metrics"].flatMap { ["begin \($0)", "end \($0)"] })
    }

    @Test func shutdownWaitsForTheParticipantsAndTheProceduresAlike() async {
        let (coordinator, _) = makeCoordinator()
        let log = StopLog()
        let participant = coordinator.addParticipant(named: "pool", stop: log.stop("pool", until: .released))
        #expect(participant.name == "pool")
        #expect(participant.stopOrder == 0)
        let holder = StubbornProcedure(name: "holder")
        holder.addObserver(BackgroundObserver(coordinator: coordinator))
        ProcedureQueue().add(procedure: holder)
        coordinator.requestShutdown()
        holder.release()
        await finished(holder)
        #expect(coordinator.phase == .shuttingDown)  // the pool is still stopping
        log.release("pool")
        let report = await report(of: coordinator)
        #expect(report?.finishedDuringGracePeriod == ["holder"])
        #expect(report?.participants == [.init(name: "pool", outcome: .stopped)])
    }

    // MARK: - Time running out

    @Test func whenTheGracePeriodExpiresTheStopInProgressIsCancelledAndTheRestBeginAtOnce() async {
        let (coordinator, clock) = makeCoordinator(gracePeriod: .seconds(10), cancellationPeriod: .seconds(5))
        let log = StopLog()
        coordinator.addParticipant(named: "a", stop: log.stop("a", until: .releasedOrCancelled))
        coordinator.addParticipant(named: "b", stop: log.stop("b", until: .releasedOrCancelled))
        coordinator.addParticipant(named: "stuck", stop: log.stop("stuck", until: .released))
        coordinator.requestShutdown()
        await eventually("stuck begins") { log.entries == ["begin stuck"] }
        clock.advance(by: .seconds(10))
        #expect(coordinator.phase == .cancellingStragglers)
        await eventually("a and b stop, cancelled") { coordinator.participantCount == 1 }
        // b and a begin together, each in a Task of its own: in either order.
        let begins = log.entries.filter { $0.hasPrefix("begin") }
        #expect(begins.first == "begin stuck")
        #expect(Set(begins) == ["begin stuck", "begin b", "begin a"] && begins.count == 3)
        #expect(
            Set(log.entries.filter { $0.hasPrefix("cancelled") }) == ["cancelled stuck", "cancelled a", "cancelled b"])
        clock.advance(by: .seconds(5))
        let report = await report(of: coordinator)
        #expect(
            report?.participants == [
                .init(name: "stuck", outcome: .stillStopping), .init(name: "b", outcome: .stoppedAfterGracePeriod),
                .init(name: "a", outcome: .stoppedAfterGracePeriod),
            ])
        #expect(report?.stillRunning == ["stuck"])
        #expect(report?.isComplete == false)
        log.release("stuck")
        await eventually("stuck returns") { log.entries.last == "end stuck" }
        #expect(coordinator.participantCount == 0)
    }

    @Test func aParticipantAddedAfterTheEndIsStoppedAtOnceAlreadyCancelled() async {
        let (coordinator, _) = makeCoordinator()
        _ = try? await coordinator.shutdownGracefully()
        let log = StopLog()
        coordinator.addParticipant(named: "late") {
            log.append(Task.isCancelled ? "late: cancelled" : "late: not cancelled")
        }
        await eventually("the late participant stops") { !log.entries.isEmpty }
        #expect(log.entries == ["late: cancelled"])
        #expect(coordinator.participantCount == 0)
    }

    // MARK: - Failures and removal

    @Test func aStopThatThrowsIsReportedAsAFailureAndTheNextOneStillStops() async {
        let (coordinator, _) = makeCoordinator()
        let log = StopLog()
        coordinator.addParticipant(named: "database", stop: log.stop("database"))
        coordinator.addParticipant(named: "http", stop: log.stop("http", throwing: ConnectionLost()))
        let report = try? await coordinator.shutdownGracefully()
        let failure = ShutdownReport.Failure(name: "http", error: ConnectionLost())
        #expect(
            report?.participants == [
                .init(name: "http", outcome: .failed(failure)), .init(name: "database", outcome: .stopped),
            ])
        #expect(report?.failures == [failure])
        #expect(report?.isComplete == true)
    }

    @Test func aParticipantsFailureShutsTheRestDownAndIsTheReason() async throws {
        let (coordinator, _) = makeCoordinator()
        let log = StopLog()
        coordinator.addParticipant(named: "database", stop: log.stop("database"))
        let feed = coordinator.addParticipant(named: "feed", stop: log.stop("feed"))
        let request = Task { try await coordinator.waitForShutdownRequest() }
        await eventually("the wait listens") { coordinator.requestListenerCount == 1 }
        feed.requestShutdown(dueTo: ConnectionLost())
        let failure = ShutdownReport.Failure(name: "feed", error: ConnectionLost())
        #expect(try await request.value == .failure(failure))
        let report = await report(of: coordinator)
        #expect(report?.reason == .failure(failure))
        #expect(report?.description.hasPrefix("shutdown (feed failed: connection lost, signals received: 0)") == true)
        #expect(report?.participants.map(\.name) == ["feed", "database"])  // the failed part is still stopped
        #expect(report?.failures == [failure])
    }

    @Test func aFailureAfterShutdownWasRequestedChangesNothing() async {
        let (coordinator, _) = makeCoordinator()
        let feed = coordinator.addParticipant(named: "feed") {}
        coordinator.requestShutdown()
        feed.requestShutdown(dueTo: ConnectionLost())
        let report = await report(of: coordinator)
        #expect(report?.reason == .requested)
        #expect(report?.failures == [])
    }

    @Test func aRemovedParticipantIsNeitherStoppedNorKept() async {
        let (coordinator, _) = makeCoordinator()
        let participant = coordinator.addParticipant(named: "gone") {
            Issue.record("a removed participant was stopped")
        }
        #expect(coordinator.participantCount == 1)
        participant.remove()
        participant.remove()
        #expect(coordinator.participantCount == 0)
        let report = try? await coordinator.shutdownGracefully()
        #expect(report == ShutdownReport(reason: .requested))
    }

    @Test func neitherARemovedNorAStoppedParticipantIsKept() async {
        let (coordinator, _) = makeCoordinator()
        let removed = addParticipantCapturingAnObject(named: "removed", to: coordinator, thenRemove: true)
        #expect(removed.object == nil)
        let stopped = addParticipantCapturingAnObject(named: "stopped", to: coordinator, thenRemove: false)
        #expect(stopped.object != nil)  // kept until it has stopped
        _ = try? await coordinator.shutdownGracefully()
        await eventually("the stop's Task lets go of what the stop captured") { stopped.object == nil }
    }
}

/// Something a stop captures, held weakly by the test to see when it is released.
private final class WeakReference: Sendable {
    weak let object: CapturedByStop?

    init(_ object: CapturedByStop) {
        self.object = object
    }
}

/// An object only a stop holds.
private final class CapturedByStop: Sendable {}

/// Adds a participant whose stop alone holds a new object (and removes it if asked); returns a weak reference to
/// the object.
private func addParticipantCapturingAnObject(
    named name: String, to coordinator: ShutdownCoordinator, thenRemove: Bool
) -> WeakReference {
    let object = CapturedByStop()
    let participant = coordinator.addParticipant(named: name) { _ = object }
    if thenRemove { participant.remove() }
    return WeakReference(object)
}
