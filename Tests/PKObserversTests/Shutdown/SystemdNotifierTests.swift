import Foundation
import PKCore
import PKTesting
import Testing

@testable import PKObservers

/// SystemdNotifier against real Unix datagram sockets the tests bind, and the coordinator's use of it.
struct SystemdNotifierTests {

    @Test func notifySocketNamesTheSocketAndItsAbsenceMeansNoNotifier() {
        #expect(
            SystemdNotifier(environment: ["NOTIFY_SOCKET": "/run/systemd/notify"])?.socketPath == "/run/systemd/notify")
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": "@abstract"])?.socketPath == "@abstract")
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": ""]) == nil)
        #expect(SystemdNotifier(environment: [:]) == nil)
    }

    @Test(arguments: [false, true])
    func aMessageArrivesAsOneDatagram(abstract: Bool) throws {
        let listener = try DatagramListener(abstract: abstract)
        try SystemdNotifier(socketPath: listener.address).send("READY=1\nSTATUS=testing")
        #expect(listener.receive(timeout: hangTimeout) == "READY=1\nSTATUS=testing")
    }

    @Test func sendingToASocketNobodyListensOnThrows() {
        let notifier = SystemdNotifier(
            socketPath: "/tmp/pk-notify-nobody-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        #expect(throws: SystemdNotifier.Failure.self) { try notifier.send("STOPPING=1") }
    }

    @Test func aPathTooLongForASocketAddressThrows() {
        let notifier = SystemdNotifier(socketPath: "/tmp/" + String(repeating: "x", count: 200))
        #expect(throws: SystemdNotifier.Failure(operation: "address", errorNumber: ENAMETOOLONG)) {
            try notifier.send("STOPPING=1")
        }
    }

    @Test(arguments: [
        (Duration.seconds(15), Int64(15_000_000)),
        (.milliseconds(1500), 1_500_000),
        (.nanoseconds(1), 1),
        (.zero, 0),
        (.seconds(-3), 0),
    ])
    func timeoutsAreSentInWholeMicrosecondsRoundedUp(_ duration: Duration, _ microseconds: Int64) {
        #expect(SystemdNotifier.microseconds(duration) == microseconds)
    }

    @Test func shutdownTellsSystemdItIsStoppingAndHowLongToWait() async throws {
        let listener = try DatagramListener()
        let (coordinator, _) = makeCoordinator(
            gracePeriod: .seconds(10), cancellationPeriod: .seconds(5),
            systemdNotifier: SystemdNotifier(socketPath: listener.address))
        let holder = StubbornProcedure(name: "holder")
        holder.addObserver(BackgroundObserver(coordinator: coordinator))
        coordinator.requestShutdown()
        // The wait (10 s + 5 s) and a second to exit.
        #expect(listener.receive(timeout: hangTimeout) == "STOPPING=1\nEXTEND_TIMEOUT_USEC=16000000")
        coordinator.requestShutdown()
        #expect(listener.receiveIfAny() == nil)  // once only (a send is queued before it returns)
        holder.release()
    }

    @Test func aShutdownWithNothingToWaitForSaysOnlyThatItIsStopping() async throws {
        let listener = try DatagramListener()
        let (coordinator, _) = makeCoordinator(systemdNotifier: SystemdNotifier(socketPath: listener.address))
        _ = try await coordinator.shutdownGracefully()
        #expect(listener.receive(timeout: hangTimeout) == "STOPPING=1")
    }

    @Test func aNotifierThatCannotSendDoesNotStopTheShutdown() async throws {
        let nowhere = SystemdNotifier(
            socketPath: "/tmp/pk-notify-nobody-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        let (coordinator, _) = makeCoordinator(systemdNotifier: nowhere)
        let poller = UntilCancelledProcedure(name: "poller")
        poller.addObserver(BackgroundObserver(cancelProcedure: .whenShutdownRequested, coordinator: coordinator))
        let writer = TestableLogWriter()
        await onThreadOfItsOwn {
            GlobalLogSettings.with(enabled: true, severity: .info, writer: writer) { coordinator.requestShutdown() }
        }
        #expect(writer.messages.contains { $0.contains("could not tell systemd") })
        ProcedureQueue().add(procedure: poller)
        #expect(await report(of: coordinator)?.finishedDuringGracePeriod == ["poller"])
    }
}
