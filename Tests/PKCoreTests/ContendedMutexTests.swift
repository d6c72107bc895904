import Foundation
import Testing

@testable import PKCore

/// The queue state's mutex: exclusive access under contention, values and errors passed through.
struct ContendedMutexTests {

    @Test func incrementsFromManyThreadsAreNotLost() {
        let mutex = ContendedMutex(0)
        let threads = 4
        let increments = 20_000
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            for _ in 0..<increments {
                mutex.withLock { $0 += 1 }
            }
        }
        #expect(mutex.withLock { $0 } == threads * increments)
    }

    @Test func returnsTheBodysResultAndRethrowsItsError() {
        let mutex = ContendedMutex([1, 2, 3])
        #expect(mutex.withLock { $0.count } == 3)
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try mutex.withLock { values throws(Failure) -> Void in
                values.append(4)
                throw Failure()
            }
        }
        // A change made before the error stays; the lock was released (this would otherwise deadlock).
        #expect(mutex.withLock { $0 } == [1, 2, 3, 4])
    }
}
