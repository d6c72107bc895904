import Foundation
import PKCore
import PKObservers
import PKProcess
import PKTesting
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Cancellation, timeouts and the grace period: the child's process group is signalled, the child always reaped,
/// nothing left running.
@Suite struct CancellationTests {
    let queue = ProcedureQueue()

    /// A procedure whose child prints its pid and its background grandchild's pid, then waits; the pids arrive
    /// through `pids`.
    private func parentOfGrandchild(trapsTerm: Bool = false) -> (ProcessProcedure, PidBox) {
        let pids = PidBox()
        let trap = trapsTerm ? "trap '' TERM; " : ""
        let script = "\(trap)sleep 3600 & echo $$ $!; while :; do sleep 0.05; done"
        let procedure = ProcessProcedure(
            command: "sh", arguments: ["-c", script],
            standardOutput: .lines { line in
                let numbers = line.split(separator: " ").compactMap { Int32($0) }
                if numbers.count == 2 { pids.set(child: numbers[0], grandchild: numbers[1]) }
            })
        return (procedure, pids)
    }

    @Test func cancellingARunningProcessEndsItAndFinishesWithoutError() async throws {
        let launched = Mutex<pid_t>(0)
        let procedure = ProcessProcedure(
            command: "sleep", arguments: ["3600"],
            processDidLaunch: { procedure in
                launched.withLock { $0 = procedure.processIdentifier }
                procedure.cancel()
            })
        _ = await queue.outcome(of: procedure)
        #expect(procedure.isCancelled)
        #expect(procedure.errors.isEmpty)
        let pid = launched.withLock { $0 }
        #expect(pid > 0)
        #expect(!ProcessInspection.isAlive(pid))
        #expect(!ProcessInspection.isOurZombie(pid))
        #expect(procedure.output.value == nil, "a cancelled process has no output")
    }

    @Test func cancellingBeforeLaunchLaunchesNothing() async throws {
        let procedure = ProcessProcedure(command: "sleep", arguments: ["3600"])
        procedure.cancel()
        _ = await queue.outcome(of: procedure)
        #expect(procedure.isCancelled)
        #expect(procedure.processIdentifier == 0)
    }

    @Test func grandchildrenInTheProcessGroupAreEndedToo() async throws {
        let (procedure, pids) = parentOfGrandchild()
        queue.addOperation(procedure)
        let (child, grandchild) = try await pids.wait()
        #expect(ProcessInspection.status(of: grandchild)?.group == child, "the grandchild is in the child's group")
        procedure.cancel()
        await procedure.waitUntilFinished()
        #expect(!ProcessInspection.isAlive(child))
        #expect(!ProcessInspection.isAlive(grandchild))
        #expect(!ProcessInspection.isOurZombie(child))
    }

    @Test func aProcessThatIgnoresTermIsKilledAfterTheGracePeriod() async throws {
        let (procedure, pids) = parentOfGrandchild(trapsTerm: true)
        procedure.terminationGracePeriod = .milliseconds(200)
        queue.addOperation(procedure)
        let (child, grandchild) = try await pids.wait()
        procedure.cancel()
        await procedure.waitUntilFinished()
        #expect(procedure.isCancelled)
        #expect(!ProcessInspection.isAlive(child))
        #expect(!ProcessInspection.isAlive(grandchild))
    }

    @Test func aTimeoutObserverEndsTheProcessTheSameWay() async throws {
        let procedure = ProcessProcedure(command: "sleep", arguments: ["3600"])
        procedure.addObserver(TimeoutObserver(by: .milliseconds(100)))
        _ = await queue.outcome(of: procedure)
        #expect(procedure.isCancelled)
        #expect(
            procedure.errors.contains { error in
                guard let error = error as? ProcedureKitError, case .timedOut = error.context else { return false }
                return true
            })
        #expect(procedure.processIdentifier > 0)
        #expect(!ProcessInspection.isAlive(procedure.processIdentifier))
        #expect(!ProcessInspection.isOurZombie(procedure.processIdentifier))
    }

    @Test func cancellingTheSwiftTaskCancelsTheProcess() async throws {
        let procedure = ProcessProcedure(command: "sleep", arguments: ["3600"])
        let task = Task { [queue] in try await queue.run(procedure) }
        #expect(await ProcessInspection.eventually { procedure.processIdentifier > 0 })
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(!ProcessInspection.isAlive(procedure.processIdentifier))
    }

    @Test func aSuspendedProcessCanBeCancelled() async throws {
        let suspended = Mutex(false)
        let procedure = ProcessProcedure(
            command: "sleep", arguments: ["3600"],
            processDidLaunch: { procedure in
                procedure.suspend { accepted in
                    suspended.withLock { $0 = accepted }
                    procedure.cancel()
                }
            })
        _ = await queue.outcome(of: procedure)
        #expect(suspended.withLock { $0 })
        #expect(procedure.isCancelled)
        #expect(!ProcessInspection.isAlive(procedure.processIdentifier))
    }

    @Test(arguments: 0..<40)
    func cancellationAtAnyMomentLeavesNothingBehind(iteration: Int) async throws {
        // A cancel racing the launch, the spawn, the run and the exit: whichever it meets, the procedure finishes
        // and the child, if one was launched, is reaped.
        let procedure = ProcessProcedure(
            command: "sh", arguments: ["-c", iteration.isMultiple(of: 2) ? "exit 0" : "sleep 3600"],
            standardOutput: .capture())
        procedure.terminationGracePeriod = .milliseconds(500)
        queue.addOperation(procedure)
        if iteration % 4 >= 2 { await Task.yield() }
        for _ in 0..<(iteration % 5) { await Task.yield() }
        procedure.cancel()
        await procedure.waitUntilFinished()
        #expect(procedure.isFinished)
        let pid = procedure.processIdentifier
        if pid > 0 {
            #expect(!ProcessInspection.isAlive(pid))
            #expect(!ProcessInspection.isOurZombie(pid))
        }
    }
}

/// The child and grandchild pids a test script prints.
final class PidBox: Sendable {
    private let pids = Mutex<(child: pid_t, grandchild: pid_t)?>(nil)

    func set(child: pid_t, grandchild: pid_t) { pids.withLock { $0 = (child, grandchild) } }

    /// Waits (up to 10 s) for the pids.
    func wait() async throws -> (child: pid_t, grandchild: pid_t) {
        #expect(await ProcessInspection.eventually { pids.withLock { $0 != nil } })
        return try #require(pids.withLock { $0 })
    }
}
