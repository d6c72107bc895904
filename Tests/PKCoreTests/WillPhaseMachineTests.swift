import Testing

@testable import PKCore

/// State × event, exhaustively, for a "will" phase's delivery, without threads.
///
/// Impossible by construction (the machine traps, and `Procedure` never sends them, because one procedure's phases
/// run one at a time in its event context): `beginDelivery` outside `idle`, and `endDelivery` in `idle`.
struct WillPhaseMachineTests {

    typealias Machine = WillPhaseMachine

    /// Two distinct token identities.
    final class Token: Sendable {}
    static let phaseToken = Token()
    static let otherToken = Token()
    static var phase: ObjectIdentifier { ObjectIdentifier(phaseToken) }
    static var other: ObjectIdentifier { ObjectIdentifier(otherToken) }

    enum Setup: String, CaseIterable, CustomTestStringConvertible {
        case idle, delivering, releasedDuringDelivery
        var testDescription: String { rawValue }
    }

    static func machine(_ setup: Setup) -> Machine {
        var machine = Machine()
        switch setup {
        case .idle:
            break
        case .delivering:
            machine.beginDelivery(token: phase)
        case .releasedDuringDelivery:
            machine.beginDelivery(token: phase)
            #expect(machine.tokenReleased(phase) == .phaseContinuesInline)
        }
        return machine
    }

    @Test func startsIdle() {
        #expect(Machine().state == .idle)
    }

    @Test func beginDeliveryFromIdleDeliversThatToken() {
        var machine = Self.machine(.idle)
        machine.beginDelivery(token: Self.phase)
        #expect(machine.state == .delivering(token: Self.phase))
    }

    @Test(arguments: Setup.allCases)
    func releasingThePhasesOwnToken(_ setup: Setup) {
        var machine = Self.machine(setup)
        let action = machine.tokenReleased(Self.phase)
        switch setup {
        case .idle:
            // The token outlived its phase: the releasing thread submits the continuation.
            #expect(action == .submitContinuation)
            #expect(machine.state == .idle)
        case .delivering:
            #expect(action == .phaseContinuesInline)
            #expect(machine.state == .releasedDuringDelivery)
        case .releasedDuringDelivery:
            // Only one last reference per token: an earlier phase's token, by identity, submits its own.
            #expect(action == .submitContinuation)
            #expect(machine.state == .releasedDuringDelivery)
        }
    }

    @Test(arguments: Setup.allCases)
    func releasingAnEarlierPhasesTokenSubmitsItsContinuation(_ setup: Setup) {
        var machine = Self.machine(setup)
        let before = machine.state
        #expect(machine.tokenReleased(Self.other) == .submitContinuation)
        #expect(machine.state == before)
    }

    @Test(arguments: [Setup.delivering, .releasedDuringDelivery])
    func endDelivery(_ setup: Setup) {
        var machine = Self.machine(setup)
        let action = machine.endDelivery()
        #expect(action == (setup == .delivering ? .continuationAwaitsToken : .runContinuation))
        #expect(machine.state == .idle)
    }

    @Test func aTokenHeldPastItsPhaseSubmitsWhenReleasedDuringTheNextPhase() {
        var machine = Machine()
        machine.beginDelivery(token: Self.phase)
        #expect(machine.endDelivery() == .continuationAwaitsToken)
        machine.beginDelivery(token: Self.other)
        #expect(machine.tokenReleased(Self.phase) == .submitContinuation)
        #expect(machine.state == .delivering(token: Self.other))
        #expect(machine.tokenReleased(Self.other) == .phaseContinuesInline)
        #expect(machine.endDelivery() == .runContinuation)
        #expect(machine.state == .idle)
    }
}
