import Foundation
import PKCore
import PKTesting
import XCTest

/// Observers synchronized with the main queue, on a procedure finished from the main thread. XCTest runs its tests
/// on the main thread, which is what this needs.
final class MainQueueObserverXCTests: XCTestCase {

    func testAnObserverSynchronizedWithMainRunsInlineWhenTheMainThreadFinishesTheProcedure() {
        XCTAssertTrue(Thread.isMainThread)
        let procedure = HookProcedure(disableAutomaticFinishing: true) { _ in }
        let ranOnMain = expectation(description: "DidFinish observer ran on the main thread")
        procedure.addDidFinishBlockObserver(synchronizedWith: DispatchQueue.main) { _, _ in
            if Thread.isMainThread { ranOnMain.fulfill() }
        }
        let executing = expectation(description: "executing")
        procedure.addDidExecuteBlockObserver { _ in executing.fulfill() }
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        wait(for: [executing], timeout: 10)
        // Before the fix this was a dispatch_sync onto the main queue from the main thread: a trap.
        procedure.finish()
        wait(for: [ranOnMain], timeout: 10)
        XCTAssertTrue(procedure.isFinished)
    }
}
