import Testing

@testable import PKHTTPServer

@Suite struct ServerStateMachineTests {

    private func running(maxConnections: Int = 2) throws -> (ServerStateMachine, WakePipe) {
        var machine = ServerStateMachine(maxConnections: maxConnections)
        let wake = try #require(WakePipe())
        #expect(machine.startRequested() == .bind)
        guard case .accept = machine.bound(port: 8080, wake: wake) else {
            Issue.record("expected to accept")
            return (machine, wake)
        }
        return (machine, wake)
    }

    @Test func aServerStartsOnce() throws {
        var (machine, _) = try running()
        #expect(machine.port == 8080)
        #expect(machine.startRequested() == .fail(.alreadyStarted))
    }

    @Test func aFailedBindLeavesTheServerStartable() {
        var machine = ServerStateMachine(maxConnections: 1)
        #expect(machine.startRequested() == .bind)
        #expect(machine.startRequested() == .fail(.alreadyStarted))
        machine.bindFailed()
        #expect(machine.startRequested() == .bind)
    }

    @Test func connectionsOverTheCapAreRejectedUntilOneEnds() throws {
        var (machine, _) = try running(maxConnections: 2)
        #expect(machine.accepted(ConnectionSocket(-1)) == .serve(0))
        #expect(machine.accepted(ConnectionSocket(-1)) == .serve(1))
        #expect(machine.accepted(ConnectionSocket(-1)) == .reject)
        machine.connectionEnded(0)
        #expect(machine.accepted(ConnectionSocket(-1)) == .serve(2))
    }

    @Test func shutdownWakesOnceAndLaterCallsWait() throws {
        var (machine, wake) = try running()
        guard case .wakeAndWait(let woken) = machine.shutdownRequested() else {
            Issue.record("expected to wake")
            return
        }
        #expect(woken === wake)
        guard case .wait = machine.shutdownRequested() else {
            Issue.record("expected to wait")
            return
        }
        #expect(machine.accepted(ConnectionSocket(-1)) == .close)
        machine.shutdownWaited()
        guard case .done(drained: true) = machine.shutdownRequested() else {
            Issue.record("expected done")
            return
        }
        #expect(machine.startRequested() == .fail(.shutDown))
    }

    @Test func connectionsThatOutlastTheShutdownLingerUntilTheyEnd() throws {
        var (machine, _) = try running()
        let socket = ConnectionSocket(-1)
        #expect(machine.accepted(socket) == .serve(0))
        _ = machine.shutdownRequested()
        #expect(machine.connectionsToForce().map { ObjectIdentifier($0) } == [ObjectIdentifier(socket)])
        machine.shutdownWaited()
        guard case .done(drained: false) = machine.shutdownRequested() else {
            Issue.record("expected a lingering connection")
            return
        }
        machine.connectionEnded(0)
        guard case .done(drained: true) = machine.shutdownRequested() else {
            Issue.record("expected drained")
            return
        }
    }

    @Test func shutdownDuringStartClosesTheListenerOnceBound() throws {
        var machine = ServerStateMachine(maxConnections: 1)
        #expect(machine.startRequested() == .bind)
        guard case .wait = machine.shutdownRequested() else {
            Issue.record("expected to wait for the start")
            return
        }
        guard case .closeListener = machine.bound(port: 1, wake: try #require(WakePipe())) else {
            Issue.record("expected to close the listener")
            return
        }
        #expect(machine.startRequested() == .fail(.shutDown))
    }

    @Test func shutdownDuringAFailingStartStops() {
        var machine = ServerStateMachine(maxConnections: 1)
        #expect(machine.startRequested() == .bind)
        _ = machine.shutdownRequested()
        machine.bindFailed()
        #expect(machine.startRequested() == .fail(.shutDown))
    }

    @Test func shutdownBeforeStartStops() {
        var machine = ServerStateMachine(maxConnections: 1)
        guard case .done(drained: true) = machine.shutdownRequested() else {
            Issue.record("expected done")
            return
        }
        #expect(machine.startRequested() == .fail(.shutDown))
        #expect(machine.port == nil)
    }

    @Test func connectionsEndingWhileStoppingLeaveTheRegistry() throws {
        var (machine, _) = try running()
        #expect(machine.accepted(ConnectionSocket(-1)) == .serve(0))
        #expect(machine.accepted(ConnectionSocket(-1)) == .serve(1))
        _ = machine.shutdownRequested()
        machine.connectionEnded(0)
        #expect(machine.connectionsToForce().count == 1)
        machine.connectionEnded(1)
        #expect(machine.connectionsToForce().isEmpty)
        machine.shutdownWaited()
        guard case .done(drained: true) = machine.shutdownRequested() else {
            Issue.record("expected drained")
            return
        }
        #expect(machine.accepted(ConnectionSocket(-1)) == .close)
        #expect(machine.port == 8080)
    }

    @Test func aRunningServerHasNothingToForce() throws {
        let (machine, _) = try running()
        #expect(machine.connectionsToForce().isEmpty)
    }
}
