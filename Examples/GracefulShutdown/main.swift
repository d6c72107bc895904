// Graceful shutdown on Linux: three procedures watched by BackgroundObservers, one per cancellation behaviour;
// four services that take part in the shutdown, stopped one at a time in reverse order; and the program's own
// ShutdownCoordinator, which it opts in to SIGTERM and SIGINT and hands to every part. Run it with
// `swift run GracefulShutdown` (it shuts itself down after 0.3 s) or `swift run GracefulShutdown --wait-for-signal`
// and press Ctrl-C (once for a graceful shutdown; again to end the grace period; a third time to stop waiting), or
// send it SIGUSR1, which makes the poller fail and so shuts the rest down.
//
// Output (standard output, line by line): "<name>: executing" for each procedure, then "ready pid=<pid>", a line per
// handler told, cancellation, finished procedure and participant's stop, the ShutdownReport, and "exit <status>".
// Exit status: 0 when nothing was left running and nothing failed, 1 when something was still running when the
// wait ended, 2 when a failure shut the program down or a stop failed, 64 for a bad command line. `--help` lists
// the options.
import Foundation
import PKCore
import PKObservers
import Synchronization

let options: Options
do {
    options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("GracefulShutdown: \(error)\n\n\(Options.usage)\n".utf8))
    exit(64)
}
if options.showHelp {
    say(Options.usage)
    exit(0)
}

// The program creates its coordinator and hands it to every part that takes part in the shutdown: the
// recommended form, which keeps libraries off the process-wide `ShutdownCoordinator.shared`. It tells systemd, as
// `shared` does. The program, not a library, decides to handle signals: after this, SIGTERM and SIGINT no longer
// kill the process; they request a graceful shutdown.
let coordinator = ShutdownCoordinator(
    gracePeriod: .seconds(options.gracePeriod), cancellationPeriod: .seconds(options.cancellationPeriod),
    systemdNotifier: SystemdNotifier())
coordinator.handleSignals([SIGTERM, SIGINT])

startServices(coordinator: coordinator)

let upload = UploadProcedure(seconds: options.uploadSeconds)
let poller = PollerProcedure()
let stubborn = StubbornProcedure(seconds: options.stubbornSeconds)
// SIGUSR1 stands for the poller's server going away; the source is kept for the life of the program.
let lostConnection = loseConnection(of: poller, on: SIGUSR1)

// Observers run in the order they were added, and the last procedure's BackgroundObserver may end the wait (and
// so the program): add it after the procedure's other observers.
for procedure in [upload, poller, stubborn] as [Procedure] {
    procedure.addDidFinishBlockObserver { procedure, _ in
        say("\(procedure.procedureName): finished\(procedure.isCancelled ? " (cancelled)" : "")")
    }
}
upload.addObserver(BackgroundObserver(coordinator: coordinator))  // .never: holds shutdown open until it is done
// ProcedureKit: .whenAppIsBackgrounded. Its failure shuts the rest down, as a failing service does in a service group.
poller.addObserver(
    BackgroundObserver(
        cancelProcedure: .whenShutdownRequested, requestsShutdownOnFailure: true, coordinator: coordinator))
stubborn.addObserver(BackgroundObserver(cancelProcedure: .whenGracePeriodExpires, coordinator: coordinator))

let queue = ProcedureQueue()

// "ready" is printed once all three procedures are executing, and the self-requested shutdown is timed from then:
// a procedure cancelled before it starts finishes without executing, so a signal sent any earlier could find the
// stubborn job not yet running.
let readyLine =
    options.shutdownAfter.map {
        "ready pid=\(getpid()) (SIGTERM or SIGINT shuts down, SIGUSR1 fails the poller; shutting down by request "
            + "after \($0) s)"
    }
    ?? "ready pid=\(getpid()) (SIGTERM or SIGINT shuts down, SIGUSR1 fails the poller)"
// An atomic counter: the three DidExecute observers may run at once, on different threads.
let executing = Atomic(0)
for procedure in [upload, poller, stubborn] as [Procedure] {
    procedure.addDidExecuteBlockObserver { procedure in
        say("\(procedure.procedureName): executing")
        let count = executing.wrappingAdd(1, ordering: .relaxed).newValue
        guard count == 3 else { return }
        say(readyLine)
        if let delay = options.shutdownAfter {
            DispatchQueue.global().asyncAfter(deadline: .now() + delay) {
                if !coordinator.isShutdownRequested { say("no signal after \(delay) s: requesting shutdown") }
                coordinator.requestShutdown()
            }
        }
    }
}
queue.add(procedures: upload, poller, stubborn)

// Blocks until shutdown has been requested and the coordinator has stopped waiting: at most grace period +
// cancellation period after the request, whatever the procedures and participants do.
let report = coordinator.syncWaitForShutdown()
say(report.description)
let status: Int32 = !report.isComplete ? 1 : report.failures.isEmpty ? 0 : 2
sayLast("exit \(status)")
exit(status)
