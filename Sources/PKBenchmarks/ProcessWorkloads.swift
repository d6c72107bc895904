import Foundation
import PKCore
import PKProcess

#if canImport(Glibc)
    import Glibc
#endif

// MARK: - Processes (W21)

/// The program each contender runs: it does nothing, so that launching and reaping is all that is measured.
let trueProgram = "/bin/true"

/// `count` ProcessProcedures running `/bin/true` through a queue of width `width`.
func processProceduresThroughQueue(_ count: Int, width: Int) {
    let queue = ProcedureQueue()
    queue.maxConcurrentOperationCount = width
    let procedures = (0..<count).map { _ in ProcessProcedure(launchPath: trueProgram) }
    queue.addOperations(procedures, waitUntilFinished: true)
    precondition(procedures.allSatisfy { $0.errors.isEmpty }, "W21: a process failed")
}

/// `count` runs of `/bin/true` by `width` threads, each a bare loop of `posix_spawn` and `waitpid`.
func bareSpawnLoops(_ count: Int, width: Int) {
    onThreads(count, width: width) {
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup(trueProgram), nil]
        defer { free(argv[0]) }
        let spawned = posix_spawn(&pid, trueProgram, nil, nil, argv, environ)
        precondition(spawned == 0, "W21: posix_spawn failed")
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        precondition(status == 0, "W21: /bin/true failed")
    }
}

/// `count` runs of `/bin/true` by `width` threads, each a loop of `Foundation.Process.run()` and
/// `waitUntilExit()`.
func foundationProcessLoops(_ count: Int, width: Int) {
    onThreads(count, width: width) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: trueProgram)
        do { try process.run() } catch { preconditionFailure("W21: Process.run failed: \(error)") }
        process.waitUntilExit()
        precondition(process.terminationStatus == 0, "W21: /bin/true failed")
    }
}

/// Runs `body` `count` times over `width` threads, as evenly as they go.
private func onThreads(_ count: Int, width: Int, _ body: @escaping @Sendable () -> Void) {
    let group = DispatchGroup()
    for thread in 0..<width {
        let share = count / width + (thread < count % width ? 1 : 0)
        group.enter()
        Thread {
            for _ in 0..<share { body() }
            group.leave()
        }.start()
    }
    group.wait()
}

/// The W21 row: ProcessProcedure against a bare `posix_spawn` + `waitpid` loop (the target) and
/// `Foundation.Process` (reported), each `width` at a time.
func processWorkload(count n: Int) -> Workload {
    let width = 8
    return Workload(
        id: "W21", title: "\(n) short processes (/bin/true), \(width) at a time", operations: n,
        contenders: [
            ("ProcessProcedure, queue of width \(width)", { processProceduresThroughQueue(n, width: width) }),
            ("bare posix_spawn + waitpid, \(width) threads", { bareSpawnLoops(n, width: width) }),
            ("Foundation.Process run + waitUntilExit, \(width) threads", { foundationProcessLoops(n, width: width) }),
        ],
        target: { m in
            let bare = ratio(
                m, "ProcessProcedure, queue of width \(width)", "bare posix_spawn + waitpid, \(width) threads")
            let foundation = ratio(
                m, "ProcessProcedure, queue of width \(width)",
                "Foundation.Process run + waitUntilExit, \(width) threads")
            return (
                String(format: "≤1.2× bare posix_spawn (%.2f; vs Foundation.Process %.2f)", bare, foundation),
                bare <= 1.2
            )
        })
}
