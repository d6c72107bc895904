import Testing

@testable import PKHTTPServer

/// The connection's deadlines, with instants made up (the machine never reads a clock).
@Suite struct ConnectionStateMachineTests {

    private let start = ContinuousClock.now
    private let timeouts = ConnectionStateMachine.Timeouts(read: .seconds(10), idle: .seconds(30))

    private func at(_ seconds: Int) -> ContinuousClock.Instant {
        start.advanced(by: .seconds(seconds))
    }

    @Test func theFirstRequestIsDueWithinTheReadTimeoutOfTheAccept() {
        var machine = ConnectionStateMachine(acceptedAt: start, timeouts: timeouts)
        #expect(machine.readDeadline == at(10))
        // Bytes do not move the deadline: the whole request is due by then.
        machine.bytesReceived(at: at(4))
        #expect(machine.readDeadline == at(10))
    }

    @Test func aKeptAliveConnectionIdlesThenGivesTheNextRequestItsOwnReadTimeout() {
        var machine = ConnectionStateMachine(acceptedAt: start, timeouts: timeouts)
        machine.requestParsed()
        #expect(machine.readDeadline == nil)
        let keptAlive = machine.responseSent(keepAlive: true, partialRequestBuffered: false, at: at(2))
        #expect(keptAlive)
        #expect(machine.state == .idle(deadline: at(32)))
        machine.bytesReceived(at: at(20))
        #expect(machine.state == .reading(deadline: at(30)))
        machine.bytesReceived(at: at(25))
        #expect(machine.readDeadline == at(30))
    }

    @Test func aPipelinedPartialRequestIsReadingFromTheResponse() {
        var machine = ConnectionStateMachine(acceptedAt: start, timeouts: timeouts)
        machine.requestParsed()
        let keptAlive = machine.responseSent(keepAlive: true, partialRequestBuffered: true, at: at(3))
        #expect(keptAlive)
        #expect(machine.state == .reading(deadline: at(13)))
    }

    @Test func aCompleteBufferedRequestIsHandledFromIdleOrReading() {
        var machine = ConnectionStateMachine(acceptedAt: start, timeouts: timeouts)
        machine.requestParsed()
        _ = machine.responseSent(keepAlive: true, partialRequestBuffered: false, at: at(1))
        machine.requestParsed()
        #expect(machine.state == .handling)
    }

    @Test func aResponseThatClosesEndsTheConnection() {
        var machine = ConnectionStateMachine(acceptedAt: start, timeouts: timeouts)
        machine.requestParsed()
        let keptAlive = machine.responseSent(keepAlive: false, partialRequestBuffered: true, at: at(1))
        #expect(!keptAlive)
        #expect(machine.state == .closed)
        #expect(machine.readDeadline == nil)
    }

    @Test(arguments: [true, false])
    func aDeadlineWhileReadingAnswers408OnlyForAPartialRequest(partial: Bool) {
        var machine = ConnectionStateMachine(acceptedAt: start, timeouts: timeouts)
        let action = machine.deadlinePassed(partialRequestBuffered: partial)
        #expect(action == (partial ? .answerTimeoutAndClose : .close))
        #expect(machine.state == .closed)
    }

    @Test func aDeadlineWhileIdleClosesQuietly() {
        var machine = ConnectionStateMachine(acceptedAt: start, timeouts: timeouts)
        machine.requestParsed()
        _ = machine.responseSent(keepAlive: true, partialRequestBuffered: false, at: at(1))
        let action = machine.deadlinePassed(partialRequestBuffered: false)
        #expect(action == .close)
    }

    @Test func closingIsAllowedInEveryState() {
        var reading = ConnectionStateMachine(acceptedAt: start, timeouts: timeouts)
        reading.closed()
        var handling = ConnectionStateMachine(acceptedAt: start, timeouts: timeouts)
        handling.requestParsed()
        handling.closed()
        var idle = ConnectionStateMachine(acceptedAt: start, timeouts: timeouts)
        idle.requestParsed()
        _ = idle.responseSent(keepAlive: true, partialRequestBuffered: false, at: at(1))
        idle.closed()
        idle.closed()
        #expect([reading.state, handling.state, idle.state] == [.closed, .closed, .closed])
    }
}
