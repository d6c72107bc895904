import Foundation
import PKCore
import Synchronization
import Testing

@testable import PKProcess

#if canImport(Glibc)
    import Glibc
#endif

/// What a child is given (its own process group, a clean signal state, only descriptors 0 to 2) and what it
/// leaves behind (nothing: no zombie, no descriptor, no process in its group).
@Suite struct ProcessGroupTests {
    let queue = ProcedureQueue()

    /// Runs `sleep 3600`, hands the running child's pid to `inspect`, then cancels it.
    private func inspectRunningChild(
        standardOutput: ProcessOutputDestination = .capture(), _ inspect: @Sendable (pid_t) async throws -> Void
    ) async throws {
        let procedure = ProcessProcedure(
            command: "sleep", arguments: ["3600"], standardInput: .data(Data("x".utf8)),
            standardOutput: standardOutput, standardError: .capture())
        queue.addOperation(procedure)
        #expect(await ProcessInspection.eventually { procedure.processIdentifier > 0 })
        defer { procedure.cancel() }
        try await inspect(procedure.processIdentifier)
    }

    @Test func theChildLeadsItsOwnProcessGroup() async throws {
        try await inspectRunningChild { pid in
            let status = try #require(ProcessInspection.status(of: pid))
            #expect(status.group == pid)
            #expect(status.group != getpgrp())
        }
    }

    @Test func theChildHasNoBlockedOrIgnoredSignals() async throws {
        // Signals 1 to 31 (glibc keeps 32 and 33 for itself, and will not reset them).
        let standardSignals: UInt64 = 0x7fff_ffff
        let ignoredHere = UInt64(ProcessInspection.statusField("SigIgn", of: getpid()) ?? "", radix: 16) ?? 0
        try await inspectRunningChild { pid in
            let blocked = try #require(UInt64(ProcessInspection.statusField("SigBlk", of: pid) ?? "", radix: 16))
            let ignored = try #require(UInt64(ProcessInspection.statusField("SigIgn", of: pid) ?? "", radix: 16))
            #expect(blocked & standardSignals == 0)
            #expect(ignored & standardSignals == 0, "ignored here: \(String(ignoredHere, radix: 16))")
        }
    }

    @Test func theChildInheritsOnlyItsThreeStandardDescriptors() async throws {
        try await inspectRunningChild { pid in
            #expect(
                await ProcessInspection.eventually {
                    Set(ProcessInspection.descriptors(of: pid).keys) == [0, 1, 2]
                })
        }
    }

    @Test func noDescriptorOfAChildIsLeftOpenHereWhenItHasEnded() async throws {
        let pipes = Mutex<Set<String>>([])
        let pidfdsWhileRunning = Mutex(0)
        let procedure = ProcessProcedure(
            command: "sh", arguments: ["-c", "read line; echo \"$line\"; echo done >&2"],
            standardInput: .string("hello\n"), standardOutput: .capture(), standardError: .capture(),
            processDidLaunch: { procedure in
                let pid = procedure.processIdentifier
                let targets = ProcessInspection.descriptors(of: pid)
                pipes.withLock { $0 = Set(targets.values.filter { $0.hasPrefix("pipe:") }) }
                pidfdsWhileRunning.withLock { $0 = ProcessInspection.pidfds(of: pid).count }
            })
        let result = try await queue.run(procedure)
        #expect(result.standardOutputText == "hello")
        let childPipes = pipes.withLock { $0 }
        #expect(childPipes.count == 3, "stdin, stdout and stderr are pipes to this process")
        #expect(pidfdsWhileRunning.withLock { $0 } == 1)
        let ours = Set(ProcessInspection.descriptors(of: getpid()).values)
        #expect(ours.isDisjoint(with: childPipes), "this process still holds a pipe of the ended child")
        #expect(ProcessInspection.pidfds(of: procedure.processIdentifier).isEmpty)
        #expect(!ProcessInspection.isOurZombie(procedure.processIdentifier))
    }

    @Test func aBackgroundProcessHoldingThePipeNeitherHangsTheProcedureNorOutlivesIt() async throws {
        // swift-corelibs-foundation #4795: waitUntilExit hangs while a grandchild keeps the output pipe open.
        let procedure = ProcessProcedure(
            command: "sh", arguments: ["-c", "sleep 3600 & echo $!"], standardOutput: .capture())
        let result = try await queue.run(procedure)
        let grandchild = try #require(Int32(result.standardOutputText))
        #expect(!ProcessInspection.isAlive(grandchild))
    }

    @Test func processesLeftInTheGroupCanBeLeftRunning() async throws {
        let procedure = ProcessProcedure(
            command: "sh", arguments: ["-c", "sleep 3600 & echo $!"], standardOutput: .capture())
        procedure.endsProcessGroupOnExit = false
        let result = try await queue.run(procedure)
        let grandchild = try #require(Int32(result.standardOutputText))
        defer { kill(grandchild, SIGKILL) }
        #expect(ProcessInspection.isAlive(grandchild))
        #expect(ProcessInspection.status(of: grandchild)?.group == procedure.processIdentifier)
    }

    @Test(arguments: [false, true])
    func whatTheChildLeftInItsGroupIsEndedWithoutSignallingAReusableId(namesGroupsByNumber: Bool) async throws {
        // A process left in the group, told SIGTERM, records whether the group's leader (the child) is still there,
        // unreaped. Named by its id, the group may be signalled only while the unreaped leader keeps that id from
        // being given to another process; through the pidfd (Linux ≥ 6.9) it is exact after the reap as well.
        let directory = try TemporaryDirectory()
        let report = directory.url.appendingPathComponent("report")
        let ready = directory.url.appendingPathComponent("ready")
        let script = """
            leader=$$
            (trap 'if [ -e /proc/$leader ]; then echo unreaped; else echo reaped; fi > \(report.path); exit 0' TERM
             touch \(ready.path); while :; do sleep 0.05; done) &
            while [ ! -e \(ready.path) ]; do sleep 0.01; done
            echo $!
            """
        let procedure = ProcessProcedure(command: "sh", arguments: ["-c", script], standardOutput: .capture())
        procedure.namesGroupsByNumber = namesGroupsByNumber
        let result = try await queue.run(procedure)
        let leftBehind = try #require(Int32(result.standardOutputText))
        #expect(!ProcessInspection.isAlive(leftBehind))
        #expect(!ProcessInspection.isOurZombie(procedure.processIdentifier))
        let recorded = try String(contentsOf: report, encoding: .utf8)
        if namesGroupsByNumber { #expect(recorded == "unreaped\n") } else { #expect(!recorded.isEmpty) }
    }

    @Test(arguments: [false, true])
    func aChildReapedElsewhereFailsAndItsGroupIsEndedOnlyWhereThatIsExact(namesGroupsByNumber: Bool) async throws {
        // Another waitpid (here, in processDidLaunch, before the supervisor watches) reaps the child: its id is free
        // for reuse. Through the pidfd the group is still named exactly and ended; by its id it is left alone.
        let directory = try TemporaryDirectory()
        let pidFile = directory.url.appendingPathComponent("pid")
        let procedure = ProcessProcedure(
            command: "sh", arguments: ["-c", "sleep 3600 & echo $! > \(pidFile.path)"],
            processDidLaunch: { procedure in
                var status: Int32 = 0
                _ = waitpid(procedure.processIdentifier, &status, 0)
            })
        procedure.namesGroupsByNumber = namesGroupsByNumber
        let error = try #require(await queue.outcome(of: procedure).processError)
        #expect(error.code == .statusUnavailable)
        let text = try String(contentsOf: pidFile, encoding: .utf8)
        let leftBehind = try #require(Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        defer { kill(leftBehind, SIGKILL) }
        #expect(ProcessInspection.isAlive(leftBehind) == namesGroupsByNumber)
    }

    @Test func suspendStopsTheGroupAndResumeContinuesIt() async throws {
        let procedure = ProcessProcedure(command: "sleep", arguments: ["3600"])
        queue.addOperation(procedure)
        #expect(await ProcessInspection.eventually { procedure.processIdentifier > 0 })
        let pid = procedure.processIdentifier
        #expect(
            await withCheckedContinuation { continuation in procedure.suspend { continuation.resume(returning: $0) } })
        #expect(await ProcessInspection.eventually { ProcessInspection.status(of: pid)?.state == "T" })
        #expect(
            await withCheckedContinuation { continuation in procedure.resume { continuation.resume(returning: $0) } })
        #expect(await ProcessInspection.eventually { ProcessInspection.status(of: pid)?.state == "S" })
        #expect(
            !(await withCheckedContinuation { continuation in procedure.resume { continuation.resume(returning: $0) } })
        )
        procedure.cancel()
        await procedure.waitUntilFinished()
    }

    @Test func aChildCanStayInThisProcesssGroup() async throws {
        let procedure = ProcessProcedure(command: "sleep", arguments: ["3600"])
        procedure.usesOwnProcessGroup = false
        queue.addOperation(procedure)
        #expect(await ProcessInspection.eventually { procedure.processIdentifier > 0 })
        let pid = procedure.processIdentifier
        #expect(ProcessInspection.status(of: pid)?.group == getpgrp())
        procedure.cancel()
        await procedure.waitUntilFinished()
        #expect(!ProcessInspection.isAlive(pid))
        #expect(ProcessInspection.isAlive(getpid()), "cancelling signalled the child, not this process's group")
    }

    @Test func aChildStoppedByAnotherHandIsContinuedToHearTheCancellation() async throws {
        let procedure = ProcessProcedure(command: "sleep", arguments: ["3600"])
        procedure.terminationGracePeriod = .seconds(60)
        queue.addOperation(procedure)
        #expect(await ProcessInspection.eventually { procedure.processIdentifier > 0 })
        let pid = procedure.processIdentifier
        kill(pid, SIGSTOP)  // as SIGTTIN or a debugger would
        #expect(await ProcessInspection.eventually { ProcessInspection.status(of: pid)?.state == "T" })
        procedure.cancel()
        // Ended by SIGTERM, well before the grace period's SIGKILL.
        #expect(await ProcessInspection.eventually(timeout: .seconds(30)) { procedure.isFinished })
        #expect(!ProcessInspection.isAlive(pid))
    }

    @Test func aProcessLeftBehindThatKeepsWritingCannotHoldTheProcedure() async throws {
        // The shell exits at once; `yes` stays in its group, holding the pipe and filling it without pause.
        let lines = Mutex(0)
        let procedure = ProcessProcedure(
            command: "sh", arguments: ["-c", "yes &"], standardOutput: .lines { _ in lines.withLock { $0 += 1 } })
        procedure.terminationGracePeriod = .seconds(2)
        _ = try await queue.run(procedure)
        #expect(!ProcessInspection.hasLiveMembers(processGroup: procedure.processIdentifier))
    }
}
