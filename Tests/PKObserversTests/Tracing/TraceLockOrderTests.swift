import Testing

@testable import PKObservers

/// The recorder's lock order, as the debug-build check enforces it (the recorder's other tests run every path that
/// takes its locks with the check on).
struct TraceLockOrderTests {

    #if DEBUG
        @Test func aProcedureLockMayBeTakenUnderAShardLockAndNothingUnderATraceLock() {
            let shard = TraceLock(.shard, 0)
            let trace = TraceLock(.trace, 0)
            #expect([TraceLockLevel.shard, .procedure, .trace].allSatisfy(TraceLockOrder.mayTake))
            shard.withLock { _ in
                #expect(!TraceLockOrder.mayTake(.shard))
                #expect(TraceLockOrder.mayTake(.procedure))
                TraceLockOrder.enteringProcedureLock {
                    #expect(!TraceLockOrder.mayTake(.procedure))
                }
                #expect(TraceLockOrder.mayTake(.procedure))
            }
            trace.withLock { _ in
                #expect(!TraceLockOrder.mayTake(.shard))
                #expect(!TraceLockOrder.mayTake(.procedure))
                #expect(!TraceLockOrder.mayTake(.trace))
            }
            #expect([TraceLockLevel.shard, .procedure, .trace].allSatisfy(TraceLockOrder.mayTake))
        }
    #endif

    @Test func levelsAreOrderedOutermostFirst() {
        #expect(TraceLockLevel.shard < .procedure)
        #expect(TraceLockLevel.procedure < .trace)
    }
}
