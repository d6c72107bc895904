import Foundation
import PKCore
import PKTesting
import Testing

// The examples of the article "Progress" (PKCore.docc/Progress.md), as written there, so that they compile and run:
// keep the two in step (Scripts/docs.sh checks that every example of the article is in a test).

private final class CopyFile: Procedure, @unchecked Sendable {
    // @unchecked Sendable: `chunks` is immutable; the rest is Procedure's, behind its lock.
    let chunks: Int64 = 8

    override func execute() {
        for chunk in 1...chunks {
            // … copy one chunk …
            reportProgress(completed: chunk, of: chunks, message: "chunk \(chunk)")
        }
        finish()
    }
}

struct ProgressGuideTests {

    @Test(.timeLimit(.minutes(1))) func watchingAGroupOfCopies() async {
        let queue = ProcedureQueue()

        let copies = GroupProcedure(operations: CopyFile(), CopyFile())
        let monitor = ProgressMonitor(copies)
        monitor.addHandler { progress in
            print(progress)  // 56% (9/16) chunk 1
        }
        queue.add(procedure: copies)
        for await progress in monitor.updates() where progress.isFinished {
            print("copied: \(progress.completedUnitCount) chunks")
        }
        // End of the article's example: the updates ended with the group's finished value.
        #expect(monitor.progress.isFinished)
        #expect(monitor.progress.completedUnitCount == 16)
        #expect(monitor.progress.totalUnitCount == 16)
    }
}
