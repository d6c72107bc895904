import Foundation
import PKCore
import PKTesting
import Synchronization
import Testing

// The code of the article "Cancellation" (PKCore.docc/Cancellation.md), as written there, so that it compiles and
// runs: keep the two in step (Scripts/docs.sh checks that every example of the article is in a test). The article's
// types and functions are private here (its `Delay` would otherwise hide PKCore's in every test file).

// "Cancelled while executing"

private final class ProcessBatch: Procedure, @unchecked Sendable {
    // @unchecked Sendable: `items` is immutable.
    let items: [Int]
    init(items: [Int]) {
        self.items = items
        super.init()
    }

    override func execute() {
        for item in items {
            guard !isCancelled else { break }
            _ = item * item  // the real work
        }
        finish()  // always finish, cancelled or not
    }
}

// "Responding promptly: a delay that stops when cancelled"

private final class Delay: Procedure, @unchecked Sendable {
    // @unchecked Sendable: `waiting` is behind its Mutex; `interval` is immutable.
    private let interval: DispatchTimeInterval
    private let waiting = Mutex(false)

    init(_ interval: DispatchTimeInterval) {
        self.interval = interval
        super.init()
        addDidCancelBlockObserver { delay, _ in
            // Cancelled mid-wait: finish now rather than when the timer fires.
            if delay.stopWaiting() { delay.finish() }
        }
    }

    /// Returns `true` to exactly one caller: the timer or the DidCancel observer.
    private func stopWaiting() -> Bool {
        waiting.withLock { waiting in
            defer { waiting = false }
            return waiting
        }
    }

    override func execute() {
        waiting.withLock { $0 = true }
        DispatchQueue.global().asyncAfter(deadline: .now() + interval) { [weak self] in
            guard let self, stopWaiting() else { return }
            finish()
        }
    }
}

// "Override or observer?"

private final class Poll: Procedure, @unchecked Sendable {
    // @unchecked Sendable: `active` is behind its Mutex.
    private let active = Mutex(false)

    override func execute() {
        active.withLock { $0 = true }
        // ... start polling; the poller calls stop() when done ...
    }

    override func procedureDidCancel(withErrors errors: [any Error]) {
        stop()
    }

    func stop() {
        let wasActive = active.withLock { active in
            defer { active = false }
            return active
        }
        if wasActive { finish() }
    }
}

// "Async procedures and Task cancellation"

private final class Crawl: AsyncProcedure, @unchecked Sendable {
    override func run() async throws {
        for page in 1...100 {
            try Task.checkCancellation()
            try await Task.sleep(for: .milliseconds(10))
            log.verbose("crawled page \(page)")
        }
    }
}

private func crawlForAWhile(on queue: ProcedureQueue) async {
    let crawling = Task { try await queue.run(Crawl()) }
    try? await Task.sleep(for: .milliseconds(50))
    crawling.cancel()
    do {
        try await crawling.value
    } catch is CancellationError {
        print("crawl cancelled")
    } catch {
        print("crawl failed: \(error)")
    }
}

@Suite(.timeLimit(.minutes(1)))
struct CancellationGuideTests {

    @Test func cancelledBeforeItExecutes() {
        let queue = ProcedureQueue()
        let report = BlockProcedure { print("never printed") }
        report.cancel(with: CocoaError(.userCancelled))
        queue.add(procedure: report)
        queue.waitUntilAllOperationsAreFinished()
        print(report.status, report.errors.count)  // cancelled 1
        // End of the article's example.
        #expect(report.status == .cancelled)
        #expect(report.errors.count == 1)
    }

    @Test func aBatchCancelledBeforeItExecutesNeverExecutes() async {
        let batch = ProcessBatch(items: [1, 2, 3])
        batch.cancel()
        ProcedureQueue().add(procedure: batch)
        await batch.waitUntilFinished()
        PKExpectProcedureCancelled(batch)
    }

    @Test func theDelayFinishesAtOnceWhenCancelledMidWait() async {
        let delay = Delay(.seconds(60))
        delay.addDidExecuteBlockObserver { delay in delay.cancel() }  // once it waits
        ProcedureQueue().add(procedure: delay)
        await delay.waitUntilFinished()
        PKExpectProcedureCancelled(delay)
    }

    @Test func thePollFinishesWhenCancelled() async {
        let poll = Poll()
        poll.addDidExecuteBlockObserver { poll in poll.cancel() }  // once it polls
        ProcedureQueue().add(procedure: poll)
        await poll.waitUntilFinished()
        PKExpectProcedureCancelled(poll)
    }

    @Test func theCrawlStopsWhenItsTaskIsCancelled() async {
        await crawlForAWhile(on: ProcedureQueue())
    }
}
