import Foundation
import PKCore
import Testing

@testable import PKObservers

/// One shard of a recorder's numbered procedures: registration, dependency lookups and interests, and how long a
/// finished procedure is recognised.
struct KnownProceduresTests {

    final class Dummy: Procedure, @unchecked Sendable {}

    let recorder = TraceRecorder()
    var observer: TraceObserver { TraceObserver(recorder: recorder) }

    @Test func aProcedureIsNumberedOnceAndRecognised() {
        var known = KnownProcedures()
        let procedure = Dummy()
        let first = observer
        guard case .registered(let category, let dependents) = known.register(procedure, id: 1, observer: first) else {
            Issue.record("not registered")
            return
        }
        #expect(category == "Dummy")
        #expect(dependents.isEmpty)
        guard case .tracedAlready(let existing) = known.register(procedure, id: 2, observer: observer) else {
            Issue.record("registered twice")
            return
        }
        #expect(existing === first)
        #expect(known.identifier(of: procedure) == 1)
        #expect(known.identifier(of: Dummy()) == nil)
        #expect(known.unfinished.map { ObjectIdentifier($0) } == [ObjectIdentifier(first)])
    }

    @Test func aDependentWaitsForItsDependencyToBeNumbered() {
        var known = KnownProcedures()
        let dependency = Dummy()
        #expect(known.identifier(of: dependency) == nil)
        known.addInterest(in: ObjectIdentifier(dependency), from: 10)
        known.addInterest(in: ObjectIdentifier(dependency), from: 11)
        guard case .registered(_, let dependents) = known.register(dependency, id: 3, observer: observer) else {
            Issue.record("not registered")
            return
        }
        #expect(dependents == [10, 11])
        #expect(known.identifier(of: dependency) == 3)
        #expect(known.takeInterests(in: ObjectIdentifier(dependency)) == [])
    }

    @Test func aWithdrawnInterestIsNotTakenUp() {
        var known = KnownProcedures()
        let dependency = Dummy()
        known.addInterest(in: ObjectIdentifier(dependency), from: 10)
        known.addInterest(in: ObjectIdentifier(dependency), from: 11)
        known.withdrawInterest(in: ObjectIdentifier(dependency), from: 10)
        known.withdrawInterest(in: ObjectIdentifier(dependency), from: 99)
        guard case .registered(_, let dependents) = known.register(dependency, id: 3, observer: observer) else {
            Issue.record("not registered")
            return
        }
        #expect(dependents == [11])
    }

    @Test func aFinishedProcedureIsRecognisedUntilNewerOnesPushItOut() {
        var known = KnownProcedures()
        let procedures = (0...KnownProcedures.finishedKept).map { _ in Dummy() }
        let observers = procedures.map { _ in observer }  // held weakly by `known`
        for (index, procedure) in procedures.enumerated() {
            _ = known.register(procedure, id: UInt64(index), observer: observers[index])
        }
        let first = known.procedureFinished(ObjectIdentifier(procedures[0]), id: 0)
        #expect(first.observer?.observer === observers[0])
        #expect(first.evicted == nil)
        #expect(known.identifier(of: procedures[0]) == 0)
        #expect(known.unfinished.count == KnownProcedures.finishedKept)
        var evicted: [UInt64] = []
        for (index, procedure) in procedures.enumerated().dropFirst() {
            let released = known.procedureFinished(ObjectIdentifier(procedure), id: UInt64(index))
            if let entry = released.evicted { evicted.append(entry.id) }
        }
        #expect(evicted == [0])
        withExtendedLifetime(observers) {}
        #expect(known.identifier(of: procedures[0]) == nil)
        #expect(known.identifier(of: procedures[1]) == 1)
        #expect(known.identifier(of: procedures.last!) == UInt64(KnownProcedures.finishedKept))
        #expect(known.unfinished.isEmpty)
    }

    @Test func runningObserversAreHeldWeakly() {
        var known = KnownProcedures()
        let procedure = Dummy()
        _ = known.register(procedure, id: 1, observer: observer)  // released at once
        #expect(known.unfinished.isEmpty)
        #expect(known.identifier(of: procedure) == 1)
    }

    @Test func aFinishReportedUnderAnotherNumberIsIgnored() {
        var known = KnownProcedures()
        let procedure = Dummy()
        let running = observer
        _ = known.register(procedure, id: 5, observer: running)
        let released = known.procedureFinished(ObjectIdentifier(procedure), id: 6)
        #expect(released.observer == nil)
        #expect(known.unfinished.map(ObjectIdentifier.init) == [ObjectIdentifier(running)])
    }

    @Test(arguments: [(0, 1), (99_999, 1), (100_000, 2), (200_000, 4), (799_999, 8), (999_999, 16), (10_000_000, 16)])
    func largeBudgetsAreSplitIntoUpToSixteenShards(_ capacity: Int, _ shards: Int) {
        #expect(TraceShard.count(forCapacity: capacity) == shards)
    }
}
