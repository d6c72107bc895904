import Foundation
import PKTesting
import Testing

@testable import PKNetwork

// Checks on errors are evaluated before #expect: on failure Swift Testing reflects the operands, and reflecting
// values such as FoundationNetworking's URLError (whose user info holds the task) is the likely cause of a crash
// seen once in a full run.

struct ConnectivityTests {

    @Test func connectionFailureWhileOfflineWaitsForTheNetworkThenRetries() async throws {
        let server = try #require(TestServer.start())
        let key = uniqueKey()
        let provider = FakeConnectivityProvider(status: .notReachable)
        let monitor = ConnectivityMonitor(provider: provider)
        let session = ManagedNetworkSession()
        let fetch = NetworkProcedure(resilience: quickResilience(), monitor: monitor) {
            NetworkDataProcedure(session: session, request: server.request("/sequence/\(key)?codes=0,200"))
        }
        ProcedureQueue().add(procedure: fetch)
        await eventually("the wait to start monitoring") { provider.isMonitoring }
        #expect(!fetch.isFinished)
        provider.set(.reachable(.ethernetOrWiFi))
        await finished([fetch])
        let check1 = fetch.errors.isEmpty
        #expect(check1)
        #expect(fetch.count == 2)
        await eventually("monitoring to stop") { provider.stops == 1 }
        #expect(provider.starts == 1)
        #expect(!monitor.isMonitoring)
    }

    @Test func successfulRequestNeverStartsMonitoring() async throws {
        let server = try #require(TestServer.start())
        let provider = FakeConnectivityProvider(status: .notReachable)
        let monitor = ConnectivityMonitor(provider: provider)
        let fetch = NetworkProcedure(resilience: quickResilience(), monitor: monitor) {
            NetworkDataProcedure(session: testSession, request: server.request("/text"))
        }
        await run(fetch)
        let check2 = fetch.errors.isEmpty
        #expect(check2)
        #expect(provider.starts == 0)
    }

    @Test func waitFinishesAtOnceWhenConnected() async {
        let provider = FakeConnectivityProvider(status: .reachable(.wwan))
        let wait = NetworkReachabilityWaitProcedure(
            connectivity: .any, monitor: ConnectivityMonitor(provider: provider))
        await run(wait)
        #expect(!wait.isCancelled)
        #expect(provider.starts == 0)
    }

    @Test func wwanDoesNotSatisfyAWaitForWiFi() async {
        let provider = FakeConnectivityProvider(status: .notReachable)
        let monitor = ConnectivityMonitor(provider: provider)
        let wait = NetworkReachabilityWaitProcedure(connectivity: .wifi, monitor: monitor)
        ProcedureQueue().add(procedure: wait)
        await eventually("monitoring to start") { provider.isMonitoring }
        provider.set(.reachable(.wwan))
        #expect(!wait.isFinished)
        provider.set(.reachable(.ethernetOrWiFi))
        await finished([wait])
        await eventually("monitoring to stop") { !provider.isMonitoring }
    }

    @Test func cancelledWaitFinishesAndStopsMonitoring() async {
        let provider = FakeConnectivityProvider(status: .notReachable)
        let monitor = ConnectivityMonitor(provider: provider)
        let wait = NetworkReachabilityWaitProcedure(monitor: monitor)
        ProcedureQueue().add(procedure: wait)
        await eventually("monitoring to start") { provider.isMonitoring }
        wait.cancel()
        await finished([wait])
        #expect(wait.isCancelled)
        await eventually("monitoring to stop") { !provider.isMonitoring }
        #expect(!monitor.isMonitoring)
    }

    @Test func interfaceProviderReportsAStatusWithoutPrivileges() {
        // Whatever this machine has, reading it must work; loopback alone never counts as connected.
        let status = InterfaceConnectivityProvider().currentStatus()
        #expect(status == .notReachable || status.satisfies(.any))
    }

    @Test(arguments: [
        (NetworkStatus.notReachable, NetworkConnectivity.any, false),
        (.reachable(.ethernetOrWiFi), .any, true), (.reachable(.ethernetOrWiFi), .wifi, true),
        (.reachable(.ethernetOrWiFi), .wwan, false), (.reachable(.wwan), .any, true),
        (.reachable(.wwan), .wifi, false), (.reachable(.wwan), .wwan, true),
    ])
    func statusSatisfiesConnectivity(status: NetworkStatus, connectivity: NetworkConnectivity, expected: Bool) {
        #expect(status.satisfies(connectivity) == expected)
    }
}

struct ConnectivityWaitStateMachineTests {
    typealias Machine = ConnectivityWaitStateMachine<String>

    @Test func satisfiedWaitResumesWithoutRegistering() {
        var machine = Machine()
        let added = machine.add("a", for: .any, status: .reachable(.wwan))
        #expect(added.id == nil)
        guard case .resume("a") = added.action else {
            Issue.record("expected resume")
            return
        }
        #expect(!machine.isMonitoring)
    }

    @Test func firstWaitStartsMonitoringAndTheLastSatisfiedStopsIt() {
        var machine = Machine()
        guard case .startMonitoring = machine.add("a", for: .any, status: .notReachable).action else {
            Issue.record("expected start")
            return
        }
        guard case .none = machine.add("b", for: .wifi, status: .notReachable).action else {
            Issue.record("expected none")
            return
        }
        let wwan = machine.statusChanged(to: .reachable(.wwan))
        #expect(wwan.resume == ["a"])
        #expect(!wwan.stopMonitoring)
        let lan = machine.statusChanged(to: .reachable(.ethernetOrWiFi))
        #expect(lan.resume == ["b"])
        #expect(lan.stopMonitoring)
        #expect(!machine.isMonitoring)
    }

    @Test func removingTheLastWaitStopsMonitoringAndRemovingTwiceDoesNothing() {
        var machine = Machine()
        let id = machine.add("a", for: .any, status: .notReachable).id!
        let first = machine.remove(id)
        #expect(first.waiter == "a")
        #expect(first.stopMonitoring)
        let second = machine.remove(id)
        #expect(second.waiter == nil)
        #expect(!second.stopMonitoring)
    }

    @Test func changeWhileIdleDoesNothing() {
        var machine = Machine()
        let action = machine.statusChanged(to: .reachable(.wwan))
        #expect(action.resume.isEmpty)
        #expect(!action.stopMonitoring)
    }

    @Test(arguments: [Duration.seconds(-1), .zero, .seconds(Int64.max)])
    func anInterfaceProviderKeepsItsPollIntervalInRange(pollInterval: Duration) {
        // A zero or negative interval trapped the polling timer when monitoring started (issue 22).
        let provider = InterfaceConnectivityProvider(pollInterval: pollInterval)
        #expect(provider.pollInterval >= .milliseconds(10))
        #expect(provider.pollInterval <= .seconds(86_400))
        provider.startMonitoring { _ in }
        provider.stopMonitoring()
    }
}
