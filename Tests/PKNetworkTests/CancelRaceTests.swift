import Foundation
import PKNetwork
import PKObservers
import PKTesting
import Testing

// Issue 37 item 2: FoundationNetworking ends the process ("Trying to access a behaviour for a task that in not in the
// registry") when a data or upload task of a session with a URL cache is cancelled while the cache is looked up,
// which happens on a background queue right after resume() (see CacheFreeSessionTask). These tests race cancels and
// timeouts against the start and the completion of fast requests; a crash ends the test process.
//
// CI's level: 2,000 races on a ManagedNetworkSession, 500 on an adapted URLSession with a cache.
// PK_STRESS_LEVEL=heavy: 100,000 and 10,000. PK_CANCEL_RACES=<n>: n in each. Under ThreadSanitizer, a tenth.

/// How many races a test runs: `ci` at CI's level, `heavy` at the heavy level, or PK_CANCEL_RACES; a tenth of that
/// under ThreadSanitizer.
private func raceCount(ci: Int, heavy: Int) -> Int {
    let environment = ProcessInfo.processInfo.environment
    var count = environment["PK_STRESS_LEVEL"] == "heavy" ? heavy : ci
    if let asked = environment["PK_CANCEL_RACES"].flatMap(Int.init) { count = asked }
    #if PK_TSAN
        count = max(1, count / 10)
    #endif
    return count
}

/// What the races saw.
private struct RaceTally: CustomStringConvertible {
    var succeeded = 0
    var cancelled = 0
    var timedOut = 0
    var other: [String] = []
    var problems: [String] = []

    var description: String {
        "\(succeeded) succeeded, \(cancelled) cancelled, \(timedOut) timed out, \(other.count) other outcomes"
    }
}

/// Runs `count` requests to the server's fast routes in rounds of `width`, each cancelled at a random moment from 0 to
/// 800 µs after its task was resumed (or, one in four, timed out that long after it started): around the cache lookup
/// and, for the fastest, around the completion. Data, upload and (unless `downloads` is false) download procedures in
/// turn.
private func race(
    count: Int, width: Int, session: any NetworkSession, server: TestServer, downloads: Bool = true
) async -> RaceTally {
    var tally = RaceTally()
    let directory = makeScratchDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let queue = ProcedureQueue()
    queue.maxConcurrentOperationCount = width
    var generator = SystemRandomNumberGenerator()
    var made = 0
    while made < count {
        let round = min(width, count - made)
        var procedures: [Procedure] = []
        let finishes = Box(0)
        for index in 0..<round {
            let number = made + index
            let procedure: Procedure
            switch number % (downloads ? 3 : 2) {
            case 0:
                procedure = NetworkDataProcedure(session: session, request: server.request("/text"))
            case 1:
                procedure = NetworkUploadProcedure(
                    session: session, request: server.request("/echo", method: "PUT"), data: Data("race".utf8))
            default:
                procedure = NetworkDownloadProcedure(
                    session: session, request: server.request("/bytes?size=64"), downloadDirectory: directory)
            }
            procedure.addDidFinishBlockObserver { _, _ in finishes.update { $0 += 1 } }
            let delay = Int.random(in: 0...800, using: &generator)
            if number % 4 == 3 {
                procedure.addObserver(TimeoutObserver(by: TimeInterval(delay) / 1_000_000))
            } else {
                // Once execute() has returned, the task is resumed: cancel at once or up to 800 µs later.
                procedure.addDidExecuteBlockObserver { procedure in
                    if delay < 100 {
                        procedure.cancel()
                    } else {
                        DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(delay)) {
                            procedure.cancel()
                        }
                    }
                }
            }
            procedures.append(procedure)
        }
        queue.add(procedures: procedures)
        guard await finished(procedures) else {
            tally.problems.append("a round did not finish")
            return tally
        }
        await eventually("every DidFinish observer to run", timeout: 5) { finishes.value == round }
        if finishes.value != round { tally.problems.append("\(finishes.value) DidFinish events for \(round)") }
        for procedure in procedures {
            let error = procedure.errors.first
            if case .timedOut? = (error as? ProcedureKitError)?.context {
                tally.timedOut += 1
            } else if procedure.isCancelled, error == nil {
                tally.cancelled += 1
            } else if error == nil {
                tally.succeeded += 1
            } else {
                // A request may still fail for real under load; it must be a typed URL error, never a crash.
                let code = (error as? URLError)?.code.rawValue ?? (error as NSError?)?.code ?? 0
                tally.other.append("\(procedure.procedureName): \(code)")
            }
        }
        // The caller owns each downloaded file.
        for case let download as NetworkDownloadProcedure in procedures {
            if let file = download.output.success?.payload { try? FileManager.default.removeItem(at: file) }
        }
        made += round
    }
    if !files(in: directory).isEmpty { tally.problems.append("files left: \(files(in: directory))") }
    return tally
}

@Suite(.serialized)
struct CancelRaceTests {

    /// Without the fix (a ManagedNetworkSession kept the configuration's URL cache), a few thousand of these crashed
    /// the process more often than not.
    @Test func cancelsAndTimeoutsRacingAManagedSessionsTasksNeverCrashAndFinishEachProcedureOnce() async throws {
        let server = try #require(TestServer.start())
        let count = raceCount(ci: 2_000, heavy: 100_000)
        let session = ManagedNetworkSession()
        defer { session.finishTasksAndInvalidate() }
        let started = Date()
        let tally = await race(count: count, width: 8, session: session, server: server)
        let seconds = Date().timeIntervalSince(started)
        print("CancelRaceTests: \(count) races on a ManagedNetworkSession in \(Int(seconds)) s: \(tally)")
        #expect(tally.problems.isEmpty, "\(tally.problems.prefix(10))")
        // Each race really raced: most requests are cancelled, some complete first.
        #expect(tally.cancelled + tally.timedOut > 0)
        #expect(tally.other.count <= count / 100, "\(tally.other.prefix(10))")
    }

    /// A URLSession with a URL cache, adapted: its data and upload tasks are abandoned, not cancelled; the procedures
    /// still finish at once, once. (No downloads: FoundationNetworking's download tasks, which never look the cache
    /// up and are cancelled as usual, would leave a file in the temporary directory for each cancel.)
    @Test func cancelsAndTimeoutsRacingACachedURLSessionsTasksNeverCrashAndFinishEachProcedureOnce() async throws {
        let server = try #require(TestServer.start())
        let count = raceCount(ci: 500, heavy: 10_000)
        let configuration = URLSessionConfiguration.ephemeral
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        #expect(session.configuration.urlCache != nil)
        let started = Date()
        let tally = await race(
            count: count, width: 8, session: URLSessionAdapter(session), server: server, downloads: false)
        let seconds = Date().timeIntervalSince(started)
        print("CancelRaceTests: \(count) races on a URLSession with a cache in \(Int(seconds)) s: \(tally)")
        #expect(tally.problems.isEmpty, "\(tally.problems.prefix(10))")
        #expect(tally.cancelled + tally.timedOut > 0)
        #expect(tally.other.count <= count / 100, "\(tally.other.prefix(10))")
    }
}
