import Foundation
import PKCapabilities
import PKTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `Capability.HostReachability` against real sockets on 127.0.0.1.
struct HostReachabilityTests {

    typealias Reachability = Capability.HostReachability

    @Test func aListeningPortIsReachable() async throws {
        let server = try LocalSocket(listening: 8)
        defer { server.close() }
        let status = try await Reachability(host: "127.0.0.1", port: server.port).authorizationStatus()
        #expect(status == .reachable(address: "127.0.0.1:\(server.port)"))
        #expect(status.meets(requirement: ()))
    }

    @Test func localhostIsResolvedToAReachableAddress() async throws {
        let server = try LocalSocket(listening: 8)
        defer { server.close() }
        let status = try await Reachability(host: "localhost", port: server.port).authorizationStatus()
        // localhost may resolve to ::1 first; the probe moves on to 127.0.0.1, where the server listens.
        #expect(status == .reachable(address: "127.0.0.1:\(server.port)"))
    }

    @Test func aHugeTimeoutIsClampedInsteadOfTrapping() async throws {
        // The probe's deadline overflowed the clock's instant (issue 22).
        let port = try LocalSocket.closedPort()
        let capability = Reachability(host: "127.0.0.1", port: port, timeout: .seconds(Int64.max))
        #expect(try await capability.authorizationStatus() == .refused)
    }

    @Test func aClosedPortRefusesTheConnection() async throws {
        let port = try LocalSocket.closedPort()
        let capability = Reachability(host: "127.0.0.1", port: port)
        let status = try await capability.authorizationStatus()
        #expect(status == .refused)
        #expect(!status.meets(requirement: ()))
        let reason = capability.unauthorizedReason(for: status) as? ReachabilityError
        #expect(reason == .notReachable(host: "127.0.0.1", port: port, status: .refused))
        #expect(reason?.description.contains("refused") == true)
    }

    @Test func aServerWhoseAcceptQueueIsFullTimesOut() async throws {
        // Linux drops a SYN when the accept queue is full, so the connection neither succeeds nor fails: the
        // probe's timeout (a short one here: it is the input, not a measurement) ends it.
        let server = try LocalSocket(listening: 0)
        let client = server.connectClient()
        defer {
            close(client)
            server.close()
        }
        let status = try await Reachability(host: "127.0.0.1", port: server.port, timeout: .milliseconds(200))
            .authorizationStatus()
        #expect(status == .timedOut)
    }

    @Test func aNameThatCannotBeResolvedIsUnresolved() async throws {
        let status = try await Reachability(host: "no such host.invalid", port: 80).authorizationStatus()
        guard case .unresolved(let message) = status else {
            Issue.record("expected unresolved, got \(status)")
            return
        }
        #expect(!message.isEmpty)
    }

    @Test(arguments: [("", UInt16(80), Duration.seconds(1)), ("127.0.0.1", 0, .seconds(1)), ("127.0.0.1", 80, .zero)])
    func anUnusableTargetIsUnavailable(host: String, port: UInt16, timeout: Duration) {
        let capability = Reachability(host: host, port: port, timeout: timeout)
        #expect(!capability.isAvailable())
        #expect(capability.unavailableReason() is ReachabilityError)
    }

    @Test func requestingChangesNothingAndCompletesAtOnce() {
        let completed = Box(false)
        Reachability(host: "127.0.0.1", port: 1).requestAuthorization { completed.value = true }
        #expect(completed.value)
    }

    @Test func aProcedureGatedOnAReachableServiceRunsAndOneOnAClosedPortDoesNot() async throws {
        let server = try LocalSocket(listening: 8)
        defer { server.close() }
        let closed = try LocalSocket.closedPort()
        let online = TestProcedure(name: "online")
        online.add(condition: AuthorizedFor(Reachability(host: "127.0.0.1", port: server.port)))
        let offline = TestProcedure(name: "offline")
        offline.add(condition: AuthorizedFor(Reachability(host: "127.0.0.1", port: closed)))
        await run(online, offline)
        PKExpectProcedureFinished(online)
        PKExpectProcedureCancelledWithError(offline, ProcedureKitError.capabilityUnauthorized())
        #expect(
            offline.kitError?.underlyingError as? ReachabilityError
                == .notReachable(host: "127.0.0.1", port: closed, status: .refused))
    }
}
