import Foundation
import PKCore
import Testing

@testable import PKObservers

/// ShutdownReport's derived values and text, and the errors a shutdown cancels procedures with.
struct ShutdownReportTests {

    @Test(arguments: [
        (ShutdownReport.Reason.requested, "requested"),
        (.signal(SIGTERM), "SIGTERM"),
        (.signal(SIGINT), "SIGINT"),
        (.signal(SIGHUP), "SIGHUP"),
        (.signal(SIGUSR1), "SIGUSR1"),
        (.signal(99), "signal 99"),
    ])
    func theReasonReadsAsTheSignalsName(_ reason: ShutdownReport.Reason, _ expected: String) {
        #expect(reason.description == expected)
    }

    @Test func aReportWithoutStragglersIsCompleteAndSaysSo() {
        let report = ShutdownReport(
            reason: .signal(SIGTERM), signalsReceived: 1, finishedDuringGracePeriod: ["a", "b"])
        #expect(report.isComplete)
        #expect(report.stillRunning == [])
        #expect(
            report.description
                == """
                shutdown (SIGTERM, signals received: 1)
                finished during the grace period: a, b
                stragglers: none
                """)
    }

    @Test func aReportListsEachStragglerAndWhetherItFinished() {
        let report = ShutdownReport(
            reason: .requested,
            stragglers: [
                .init(name: "upload", behavior: .never, finished: false),
                .init(name: "job", behavior: .whenGracePeriodExpires, finished: true),
            ])
        #expect(!report.isComplete)
        #expect(report.stillRunning == ["upload"])
        #expect(
            report.description
                == """
                shutdown (requested, signals received: 0)
                finished during the grace period: none
                stragglers:
                  upload (never): still running
                  job (whenGracePeriodExpires): finished after the grace period
                """)
    }

    @Test(arguments: [
        (ShutdownPhase.running, "running"), (.shuttingDown, "shuttingDown"),
        (.cancellingStragglers, "cancellingStragglers"), (.finished, "finished"),
    ])
    func phasesReadAsTheirNames(_ phase: ShutdownPhase, _ name: String) {
        #expect(phase.description == name)
    }

    @Test(arguments: [
        (BackgroundObserver.CancellationBehavior.never, "never"), (.whenShutdownRequested, "whenShutdownRequested"),
        (.whenGracePeriodExpires, "whenGracePeriodExpires"),
    ])
    func behavioursReadAsTheirNames(_ behavior: BackgroundObserver.CancellationBehavior, _ name: String) {
        #expect(behavior.description == name)
    }

    // MARK: - ProcedureKitError

    @Test func shutdownErrorsHaveTheirOwnContextsAndDescriptions() {
        #expect(ProcedureKitError.shutdownRequested().context == .shutdownRequested)
        #expect(ProcedureKitError.shutdownGracePeriodExpired().context == .shutdownGracePeriodExpired)
        #expect(ProcedureKitError.shutdownRequested() != ProcedureKitError.shutdownGracePeriodExpired())
        #expect(ProcedureKitError.shutdownRequested().description == "Cancelled: the process is shutting down")
        #expect(
            ProcedureKitError.shutdownGracePeriodExpired().description == "Cancelled: the shutdown grace period expired"
        )
    }

    @Test func appWasBackgroundedIsProcedureKitsNameForShutdownRequested() {
        #expect(ProcedureKitError.appWasBackgrounded() == ProcedureKitError.shutdownRequested())
    }

    // MARK: - Participants and failures

    @Test func aReportListsEachParticipantsStopAndEveryFailure() {
        let trigger = ShutdownReport.Failure(name: "feed", error: ConnectionLost())
        let stopFailure = ShutdownReport.Failure(name: "http", error: ConnectionLost())
        let report = ShutdownReport(
            reason: .failure(trigger),
            participants: [
                .init(name: "http", outcome: .failed(stopFailure)),
                .init(name: "cache", outcome: .stoppedAfterGracePeriod),
                .init(name: "database", outcome: .stillStopping), .init(name: "metrics", outcome: .stopped),
            ])
        #expect(report.failures == [trigger, stopFailure])
        #expect(report.stillRunning == ["database"])
        #expect(!report.isComplete)
        #expect(
            report.description
                == """
                shutdown (feed failed: connection lost, signals received: 0)
                finished during the grace period: none
                stragglers: none
                participants:
                  http: failed (connection lost)
                  cache: stopped after the grace period
                  database: still stopping
                  metrics: stopped
                """)
    }

    @Test func aReportWhoseStopsAllReturnedIsCompleteEvenWithAFailure() {
        let failure = ShutdownReport.Failure(name: "http", error: ConnectionLost())
        let report = ShutdownReport(
            reason: .requested, participants: [.init(name: "http", outcome: .failed(failure))])
        #expect(report.isComplete)
        #expect(report.failures == [failure])
    }

    @Test func failuresAreEqualWhenTheyNameTheSamePartAndTheirErrorsPrintTheSame() {
        let failure = ShutdownReport.Failure(name: "feed", error: ConnectionLost())
        #expect(failure == ShutdownReport.Failure(name: "feed", error: ConnectionLost()))
        #expect(failure != ShutdownReport.Failure(name: "http", error: ConnectionLost()))
        #expect(failure != ShutdownReport.Failure(name: "feed", error: CancellationError()))
        #expect(Set([failure, ShutdownReport.Failure(name: "feed", error: ConnectionLost())]).count == 1)
        #expect(ShutdownReport.Reason.failure(failure).description == "feed failed: connection lost")
    }
}
