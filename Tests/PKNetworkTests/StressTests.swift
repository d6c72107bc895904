import Foundation
import PKNetwork
import PKTesting
import Testing

struct StressTests {

    /// 1,000 requests (a quarter of them downloads) through a queue of width 16, a random fifth cancelled at a
    /// random moment: each finishes exactly once, the session is released once the procedures are, and no
    /// downloaded or session temporary file is left behind.
    @Test func thousandRequestsWithRandomCancelsEachFinishOnceAndLeaveNothingBehind() async throws {
        let server = try #require(TestServer.start())
        let directory = makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let leaks = LeakCheck()
        let finishes = Box<[Int: Int]>([:])
        let total = 1000
        var session: ManagedNetworkSession? = ManagedNetworkSession()
        var recording: RecordingSession? = RecordingSession(base: session!)
        let locations = recording!.locations
        leaks.track(session!, name: "session")
        var procedures: [Procedure] = []
        let paths = ["/text", "/status/500", "/slow?ms=20", "/bytes?size=4096", "/chunked?parts=3"]
        for index in 0..<total {
            let request = server.request(paths[index % paths.count])
            let procedure: Procedure =
                index % 4 == 0
                ? NetworkDownloadProcedure(session: recording!, request: request, downloadDirectory: directory)
                : NetworkDataProcedure(session: recording!, request: request)
            procedure.addDidFinishBlockObserver { _, _ in finishes.update { $0[index, default: 0] += 1 } }
            procedures.append(procedure)
        }
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 16
        queue.add(procedures: procedures)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<(total / 5) {
            procedures.randomElement(using: &generator)?.cancel()
            if Bool.random(using: &generator) { try await Task.sleep(for: .microseconds(200)) }
        }
        await finished(procedures)
        let counts = finishes.value
        #expect(counts.count == total)
        #expect(counts.values.allSatisfy { $0 == 1 })
        // The caller owns each output file; delete them, then nothing may remain.
        for case let download as NetworkDownloadProcedure in procedures {
            if let file = download.output.success?.payload { try? FileManager.default.removeItem(at: file) }
        }
        #expect(files(in: directory).isEmpty)
        #expect(locations.value.allSatisfy { !FileManager.default.fileExists(atPath: $0.path) })
        for procedure in procedures.prefix(50) { leaks.track(procedure) }
        procedures = []
        recording = nil
        session = nil
        let unreleased = await leaks.unreleased(timeout: hangTimeout)
        #expect(unreleased.isEmpty, "\(unreleased)")
    }
}
