// The example's long-lived parts, set up the way a library sets itself up: it is handed the program's
// ShutdownCoordinator and never reaches for ShutdownCoordinator.shared.
import Foundation
import PKObservers

/// Starts the example's services and adds each as a participant of `coordinator`, in the order they depend on each
/// other: the database first, the HTTP server last. On shutdown they stop the other way round, one at a time, each
/// stop awaited before the next begins, except the metrics flusher, whose stop order puts it last whatever the
/// order it was added in.
///
/// Two of them are not procedures and are never cancelled, so they learn of the shutdown without polling: the HTTP
/// server's accept loop through a shutdown handler, the metrics flusher by awaiting the request.
func startServices(coordinator: ShutdownCoordinator) {
    coordinator.addParticipant(named: "database", stop: announcedStop("database", closingConnections))
    coordinator.addParticipant(named: "cache", stop: announcedStop("cache", closingConnections))

    let metrics = Task {
        let reason = (try? await coordinator.waitForShutdownRequest()).map { "\($0)" } ?? "cancelled"
        say("metrics: shutdown began (\(reason)), will flush last")
    }
    coordinator.addParticipant(named: "metrics", stopOrder: 1, stop: announcedStop("metrics") { await metrics.value })

    // A stand-in for a server's accept loop: it runs until its intake is closed, which the handler does as soon
    // as shutdown is requested (at once if it already was).
    let (connections, intake) = AsyncStream.makeStream(of: Int.self)
    let server = Task {
        await coordinator.withShutdownHandler {
            for await _ in connections {}
        } onShutdownRequested: {
            say("http: shutdown requested, no longer accepting")
            intake.finish()
        }
    }
    coordinator.addParticipant(named: "http", stop: announcedStop("http") { await server.value })
}

/// A participant's stop that says when it begins and when it ends, and does `work` in between.
private func announcedStop(_ name: String, _ work: @escaping @Sendable () async -> Void)
    -> @Sendable () async -> Void
{
    {
        say("\(name): stopping")
        await work()
        say("\(name): stopped")
    }
}

/// What closing a real service's connections would take, roughly; cut short if the stop is cancelled.
@Sendable private func closingConnections() async {
    try? await Task.sleep(for: .milliseconds(10))
}
