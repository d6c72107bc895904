import Foundation
import PKCore
import PKTesting
import Synchronization
import Testing

@testable import PKObservers

#if canImport(Glibc)
    import Glibc
#endif

/// The progress bar drawing into a real pseudo-terminal the test opens (and into a pipe, which is not a terminal).
@Suite(.timeLimit(.minutes(1)))
struct TerminalProgressBarTests {

    /// A pseudo-terminal pair: the bar writes to `terminal`, the test reads what reached the screen from `screen`.
    final class PseudoTerminal {
        let screen: Int32
        let terminal: Int32

        /// posix_openpt, grantpt, unlockpt and ptsname_r, looked up in the C library at run time: Swift's Glibc
        /// module leaves them out (they need `_XOPEN_SOURCE`).
        private static func function<F>(_ name: String, as type: F.Type) throws -> F {
            guard let symbol = dlsym(dlopen(nil, RTLD_NOW), name) else { throw POSIXError(.ENOSYS) }
            return unsafeBitCast(symbol, to: type)
        }

        init(columns: UInt16) throws {
            typealias OneDescriptor = @convention(c) (Int32) -> Int32
            typealias Name = @convention(c) (Int32, UnsafeMutablePointer<CChar>, Int) -> Int32
            let openpt = try Self.function("posix_openpt", as: (@convention(c) (Int32) -> Int32).self)
            let grantpt = try Self.function("grantpt", as: OneDescriptor.self)
            let unlockpt = try Self.function("unlockpt", as: OneDescriptor.self)
            let ptsname = try Self.function("ptsname_r", as: Name.self)
            screen = openpt(O_RDWR | O_NOCTTY)
            var name = [CChar](repeating: 0, count: 128)
            guard screen >= 0, grantpt(screen) == 0, unlockpt(screen) == 0, ptsname(screen, &name, name.count) == 0
            else { throw POSIXError(.ENODEV) }
            terminal = open(name, O_RDWR | O_NOCTTY)
            guard terminal >= 0 else { throw POSIXError(.ENODEV) }
            var size = winsize(ws_row: 24, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
            _ = ioctl(terminal, UInt(TIOCSWINSZ), &size)
            _ = fcntl(screen, F_SETFL, fcntl(screen, F_GETFL) | O_NONBLOCK)
        }

        /// Everything written so far.
        func read() -> String {
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = Glibc.read(screen, &buffer, buffer.count)
                guard count > 0 else { break }
                bytes += buffer[0..<count]
            }
            return String(decoding: bytes, as: UTF8.self)
        }

        deinit {
            close(terminal)
            close(screen)
        }
    }

    /// A procedure that waits, once it executes, for the test to let it finish (``release()``).
    final class Held: Procedure, @unchecked Sendable {
        // @unchecked Sendable: `gate` is a Mutex.
        private let gate = Mutex((released: false, executing: false))

        override init() { super.init(disableAutomaticFinishing: true) }

        override func execute() {
            let released = gate.withLock { gate -> Bool in
                gate.executing = true
                return gate.released
            }
            if released || isCancelled { finish() }
        }

        func release() {
            let executing = gate.withLock { gate -> Bool in
                gate.released = true
                return gate.executing
            }
            if executing { finish() }
        }
    }

    @Test func onATerminalTheBarRedrawsOneLineInPlaceThrottledAndEndsWithANewline() async throws {
        let pty = try PseudoTerminal(columns: 60)
        #expect(isatty(pty.terminal) == 1)
        let clock = ManualClock()
        let procedure = Held()
        let bar = TerminalProgressBar(
            monitoring: ProgressMonitor(procedure), title: "Copy", fileDescriptor: pty.terminal, barWidth: 10,
            clock: clock)
        procedure.reportProgress(completed: 1, of: 4)  // within 100 ms of the first drawing (0%): held back
        procedure.reportProgress(completed: 2, of: 4)
        #expect(!pty.read().contains("50%"))
        clock.advance(by: .milliseconds(100))  // the held-back drawing is due: the latest value
        let drawn = pty.read()
        #expect(drawn.contains("\rCopy [#####.....]  50% (2/4)\u{1B}[K"))
        #expect(!drawn.contains("25%"), "coalesced: the value that was overtaken is never drawn")
        ProcedureQueue().add(procedure: procedure)
        procedure.release()
        await procedure.waitUntilFinished()
        let end = pty.read()
        // The terminal's line discipline turns the final "\n" into "\r\n".
        #expect(end.hasSuffix("\rCopy [##########] 100% (4/4)\u{1B}[K\r\n"))
        #expect(bar.isFinished)
        let everything = drawn + end
        #expect(everything.filter { $0 == "\n" || $0 == "\r\n" }.count == 1, "one line, redrawn in place")
    }

    /// A fake wall clock that can be stepped back, as NTP or `date -s` step the real one; it never runs what is
    /// scheduled on it, so a drawing put off to a come-back never appears.
    final class FakeSteppingWallClock: ProcedureClock, @unchecked Sendable {
        // @unchecked Sendable: `time` is a Mutex.
        private let time = Mutex(Date(timeIntervalSince1970: 1_000_000))
        var now: Date { time.withLock { $0 } }
        func step(by seconds: TimeInterval) { time.withLock { $0 += seconds } }
        func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any ScheduledAction {
            NeverRuns()
        }
        struct NeverRuns: ScheduledAction {
            func cancel() {}
        }
    }

    @Test func onATerminalAClockSteppedBackDoesNotFreezeTheBar() async throws {
        let pty = try PseudoTerminal(columns: 60)
        let clock = FakeSteppingWallClock()
        let procedure = Held()
        let bar = TerminalProgressBar(
            monitoring: ProgressMonitor(procedure), title: "Copy", fileDescriptor: pty.terminal, barWidth: 10,
            clock: clock)
        clock.step(by: 10)
        procedure.reportProgress(completed: 1, of: 4)
        #expect(pty.read().contains("25% (1/4)"))
        clock.step(by: -3600)
        procedure.reportProgress(completed: 2, of: 4)
        #expect(pty.read().contains("50% (2/4)"), "drawn at once, not an hour and a tenth of a second later")
        procedure.cancel()
        ProcedureQueue().add(procedure: procedure)
        await procedure.waitUntilFinished()
        #expect(bar.isFinished)
    }

    @Test func onATerminalTheLineFitsItsWidth() async throws {
        let pty = try PseudoTerminal(columns: 24)
        let procedure = Held()
        _ = TerminalProgressBar(
            monitoring: ProgressMonitor(procedure), title: "Resizing", fileDescriptor: pty.terminal, barWidth: 10,
            clock: ManualClock())
        procedure.reportProgress(fractionCompleted: 0, message: "a message far too long for the line")
        let drawn = pty.read()
        for line in drawn.split(separator: "\r", omittingEmptySubsequences: true) {
            #expect(line.replacingOccurrences(of: "\u{1B}[K", with: "").count <= 23)
        }
        procedure.cancel()
        ProcedureQueue().add(procedure: procedure)
        await procedure.waitUntilFinished()
    }

    @Test func intoAPipeTheBarWritesPlainLines() async throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer {
            close(fds[0])
        }
        let queue = ProcedureQueue()
        let monitor = ProgressMonitor(queue)
        let bar = TerminalProgressBar(monitoring: monitor, title: "Jobs", fileDescriptor: fds[1], clock: ManualClock())
        let jobs = (0..<4).map { _ in Held() }
        queue.add(procedures: jobs)
        for job in jobs { job.release() }
        await queue.allOperationsFinished()
        bar.finish()
        close(fds[1])
        let text = String(decoding: FileHandle(fileDescriptor: fds[0]).readDataToEndOfFile(), as: UTF8.self)
        #expect(!text.contains("\r"))
        #expect(!text.contains("\u{1B}"))
        #expect(text.hasSuffix("Jobs: 100% (4/4)\n"))
        #expect(text.split(separator: "\n").count >= 2)
    }
}
