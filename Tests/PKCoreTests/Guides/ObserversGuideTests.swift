import Dispatch
import PKCore
import PKTesting
import Synchronization
import Testing

// The code of PKCore's article "Observers" (PKCore.docc/Observers.md), as written there, so that it compiles and
// runs: keep the two in step (Scripts/docs.sh checks that every example of the article is in a test). The article's
// types and functions are private here, and its statements are in the tests, after the names they assume.

// "Writing an observer"

private final class Tally: Sendable {
    private let counts = Mutex((finished: 0, failed: 0))
    var summary: (finished: Int, failed: Int) { counts.withLock { $0 } }
    func record(failed: Bool) {
        counts.withLock { counts in
            if failed { counts.failed += 1 } else { counts.finished += 1 }
        }
    }
}

private struct TallyObserver: ProcedureObserver {
    let tally: Tally

    func did(finish procedure: Procedure, withErrors errors: [any Error]) {
        tally.record(failed: !errors.isEmpty)
    }
}

// "Events as an async sequence"

private func trace(_ procedure: Procedure, on queue: ProcedureQueue) async {
    let events = procedure.lifecycleEvents()
    queue.add(procedure: procedure)
    for await event in events { print(event) }
}

@Suite(.timeLimit(.minutes(1)))
struct ObserversGuideTests {

    @Test func theTallyCountsWhatFinished() async {
        let tally = Tally()
        let work = BlockProcedure { print("working") }
        work.addObserver(TallyObserver(tally: tally))
        // End of the article's example.
        ProcedureQueue().add(procedure: work)
        await work.waitUntilFinished()
        #expect(tally.summary.finished == 1)
        #expect(tally.summary.failed == 0)
    }

    @Test func blockObserversAndSynchronizing() async {
        let download = BlockProcedure { print("downloading") }
        download.addWillExecuteBlockObserver { procedure, _ in
            print("starting \(procedure.procedureName)")
        }
        download.addDidFinishBlockObserver { procedure, errors in
            print("\(procedure.procedureName) ended as \(procedure.status) with \(errors.count) error(s)")
        }

        // Several events in one observer:
        download.addObserver(
            BlockObserver<BlockProcedure>(
                didCancel: { procedure, _ in print("\(procedure.procedureName) cancelled") },
                didFinish: { procedure, _ in print("\(procedure.procedureName) done") }
            ))
        // "Synchronizing with something else":
        let state = DispatchQueue(label: "model")
        download.addDidFinishBlockObserver(synchronizedWith: state) { procedure, _ in
            // runs on `state`, serialized with everything else submitted to it
        }
        // End of the article's examples.
        ProcedureQueue().add(procedure: download)
        await download.waitUntilFinished()
        PKExpectProcedureFinished(download)
    }

    @Test func holdingAnEventBackWithPendingEvent() async {
        let upload = BlockProcedure { print("uploading") }
        upload.addWillExecuteBlockObserver { procedure, pendingExecute in
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) {
                pendingExecute.doBeforeEvent {
                    print("credentials refreshed before \(procedure.procedureName) executes")
                }
                // The last reference goes away when this closure is released: execute() may now run.
            }
        }
        // End of the article's example.
        ProcedureQueue().add(procedure: upload)
        await upload.waitUntilFinished()
        PKExpectProcedureFinished(upload)
    }

    @Test func eventsAsAnAsyncSequence() async {
        let procedure = BlockProcedure {}
        await trace(procedure, on: ProcedureQueue())
        #expect(procedure.isFinished)
    }
}
