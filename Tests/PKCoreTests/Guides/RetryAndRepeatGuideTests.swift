import PKCore
import PKTesting
import Testing

// The code of the article "Retry and Repeat" (PKCore.docc/RetryAndRepeat.md), as written there, so that it compiles
// and runs: keep the two in step (Scripts/docs.sh checks that every example of the article is in a test).
// `FetchStatusProcedure` and `FetchFeedProcedure` stand for the reader's own procedures.

private final class FetchStatusProcedure: Procedure, @unchecked Sendable {
    override func execute() { finish() }
}

private final class FetchFeedProcedure: Procedure, @unchecked Sendable {
    override func execute() { finish() }
}

struct RetryAndRepeatGuideTests {

    @Test func repeatPollsUntilCancelled() async {
        let queue = ProcedureQueue()
        // Poll five times, ten seconds apart.
        let poll = RepeatProcedure(max: 5, wait: .constant(10)) { FetchStatusProcedure() }
        queue.add(procedure: poll)
        // End of the article's example: not ten seconds more of it.
        poll.cancel()
        await poll.waitUntilFinished()
        #expect(poll.isCancelled)
    }

    @Test func retryStopsAtTheFirstSuccess() async {
        let fetch = RetryProcedure(max: 3, wait: .exponential(power: 2, period: 0.5, maximum: 8)) {
            FetchFeedProcedure()
        }
        // End of the article's example.
        ProcedureQueue().add(procedure: fetch)
        await fetch.waitUntilFinished()
        PKExpectProcedureFinished(fetch)
        #expect(fetch.count == 1)
    }
}
