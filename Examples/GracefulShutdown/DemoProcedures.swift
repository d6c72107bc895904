// The three kinds of work the example runs, one per BackgroundObserver behaviour, and what makes the poller fail.
import Foundation
import PKCore
import Synchronization

/// Whether the program printed its last line (``sayLast(_:)``); every write happens under this lock.
private let outputClosed = Mutex(false)

/// Writes `line` and a newline to standard output in one unbuffered write, so that a parent reading a pipe sees
/// each line at once and lines from different threads do not interleave. Nothing is written after the program's
/// last line: work still running when it exits (a participant a third signal left stopping) stays silent.
func say(_ line: String) {
    outputClosed.withLock { closed in
        guard !closed else { return }
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

/// Writes the program's last line, as ``say(_:)`` does; nothing is written after it.
func sayLast(_ line: String) {
    outputClosed.withLock { closed in
        guard !closed else { return }
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
        closed = true
    }
}

/// Uploads for a fixed time and cannot be interrupted: watched with `.never`, it holds shutdown open until it is
/// done.
final class UploadProcedure: Procedure, @unchecked Sendable {
    // @unchecked Sendable: `seconds` is immutable.
    let seconds: Double

    init(seconds: Double) {
        self.seconds = seconds
        super.init()
        name = "upload"
    }

    override func execute() {
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { self.finish() }
    }
}

/// Polls until it is cancelled, or until its connection is lost, when it fails: watched with
/// `.whenShutdownRequested`, it stops as soon as shutdown begins; watched with `requestsShutdownOnFailure` too, its
/// failure shuts the rest of the program down.
final class PollerProcedure: Procedure, @unchecked Sendable {
    // @unchecked Sendable: no state of its own.
    override init() {
        super.init()
        name = "poller"
    }

    override func execute() {
        // Nothing to do until cancelled; a real poller would schedule its next poll here.
    }

    override func procedureDidCancel(withErrors errors: [any Error]) {
        say("poller: cancelled (\(errors.map { "\($0)" }.joined(separator: ", "))), stopping")
        finish()
    }

    /// Fails, as a real poller would when its server goes away.
    func loseConnection() {
        say("poller: connection lost, failing")
        finish(with: PollerError.connectionLost)
    }
}

/// How the poller fails.
enum PollerError: Error, CustomStringConvertible {
    case connectionLost

    var description: String { "connection lost" }
}

/// Works for a fixed time and ignores cancellation: watched with `.whenGracePeriodExpires`, it is cancelled when
/// the grace period expires, carries on regardless, and is reported if it is still running when the wait ends.
final class StubbornProcedure: Procedure, @unchecked Sendable {
    // @unchecked Sendable: `seconds` is immutable.
    let seconds: Double

    init(seconds: Double) {
        self.seconds = seconds
        super.init()
        name = "stubborn"
    }

    override func execute() {
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { self.finish() }
    }

    override func procedureDidCancel(withErrors errors: [any Error]) {
        say("stubborn: cancelled (\(errors.map { "\($0)" }.joined(separator: ", "))), carrying on regardless")
    }
}

/// Makes `signalNumber` (SIGUSR1) cut the poller's connection, standing in for a network failure that a test can
/// cause from outside; returns the source once it is registered, so that a signal sent afterwards is not missed.
func loseConnection(of poller: PollerProcedure, on signalNumber: Int32) -> any DispatchSourceSignal {
    signal(signalNumber, SIG_IGN)  // its default action, terminating the process, must not run meanwhile
    let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
    let registered = DispatchSemaphore(value: 0)
    source.setRegistrationHandler { registered.signal() }
    source.setEventHandler { poller.loseConnection() }
    source.resume()
    registered.wait()
    return source
}
