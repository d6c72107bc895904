// Re-creates ProcedureKit's Tests/ProcedureKitNetworkTests/NetworkProcedureTests.swift (the stored version with the
// non-generic `NetworkDataProcedure` target; its `XCTAssertProcedure…` calls are written with the 5.x `PKAssert…`
// names, and its `add(dependency:)` with 5.x's `addDependency(_:)`, since the old names are deprecated here and
// warnings are errors).
//
// Changes besides imports:
// - `url = "http://procedure.kit.run"` is `URL(string: "http://procedure.kit.run")!`: PKNetwork does not make `URL`
//   `ExpressibleByStringLiteral` (we add no conformances to Foundation's types).
// - `procedure.reachability = manager` (an internal property ProcedureKit's tests set through `@testable`) is
//   `monitor: manager.monitor` passed to the initialiser, PKNetwork's public equivalent.
// - `createNetworkProcedure` is a computed property returning a `@Sendable` closure over the session and request,
//   instead of a method: a network procedure's body is `@Sendable` in Swift 6 and cannot capture the test case.
//   `body: createNetworkProcedure` reads the same.
// - test__waits_for_reachability_change_before_retrying: the 0.1 s `delay` depends on the first attempt, as in the
//   tests below, so that the session cannot be fixed before the first attempt has failed.
// - test__does_not_wait_for_reachability_if_transient_error also asserts that the notifier never started (what its
//   name says; ProcedureKit asserted only the count).
// - Other closures that procedures keep capture locals (`session`, `network`, `url`) instead of `self`, and record
//   into a lock-protected `Flag` instead of mutating a captured `var`.
// - `procedure.log.severity = .notice` is `.info`: 5.x's severities (and PKCore's) have no `notice`.
// - test__does_not_wait_for_reachability_if_transient_error, test__retry_server_error,
//   test__retry_client_error_too_many_requests: the network procedure runs on a
//   `ManualClock` (`clock:`), so that its 1 s per-attempt timeout and 1 s backoff pass only when the test says;
//   `wait(forAll:passingBackoffAfter:)` lets the backoff before the second attempt pass once the session has been
//   fixed (ProcedureKit raced a 0.1 s delay against the real 1 s backoff), and the 0.1 s `delay` that leads to the
//   fix depends on the first attempt (`procedure.current`), so the fix cannot come before the first attempt failed.
// - NetworkReachabilityWaitProcedureTests.test__procedure_waits_until_correct_network_connectivity_is_available runs
//   on every platform (ProcedureKit compiled it under `#if os(iOS)`, where SystemConfiguration has `isWWAN`; PKNetwork's
//   `NetworkReachabilityFlags` have it everywhere), and its `delay2` depends on `changeNetwork1` (ProcedureKit raced a
//   0.1 s delay against a 0.2 s one), so the WWAN change always comes before the Wi-Fi one.
//
// Left out: nothing.

import Foundation
import PKNetwork
import PKTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

final class NetworkReachabilityWaitProcedureTests: ProcedureKitTestCase {

    var network: TestableNetworkReachability!
    var manager: Reachability.Manager!

    override func setUp() {
        super.setUp()
        network = TestableNetworkReachability()
        manager = Reachability.Manager(network)
    }

    override func tearDown() {
        network = nil
        manager = nil
        super.tearDown()
    }

    func test__procedure_waits_until_network_is_reachable() {
        network.flags = .connectionRequired
        let procedure = NetworkReachabilityWaitProcedure(reachability: manager)
        let delay = DelayProcedure(by: 0.1)
        let network = self.network!
        let makeNetworkReachable = BlockProcedure {
            network.flags = .reachable
        }
        makeNetworkReachable.addDependency(delay)

        wait(forAll: [delay, makeNetworkReachable, procedure])
        PKAssertProcedureFinished(procedure)
    }

    // ProcedureKit compiles this test on iOS only (SystemConfiguration has `isWWAN` there); PKNetwork's
    // `NetworkReachabilityFlags` have it on every platform, so it runs here. `delay2` depends on `changeNetwork1`
    // (ProcedureKit raced a 0.1 s delay against a 0.2 s one) so that the WWAN change always comes first.
    func test__procedure_waits_until_correct_network_connectivity_is_available() {
        network.flags = .interventionRequired
        let procedure = NetworkReachabilityWaitProcedure(reachability: manager, via: .wifi)
        let network = self.network!

        let delay1 = DelayProcedure(by: 0.1)
        let changeNetwork1 = BlockProcedure {
            network.flags = [.reachable, .isWWAN]
        }
        changeNetwork1.addDependency(delay1)

        let delay2 = DelayProcedure(by: 0.2)
        delay2.addDependency(changeNetwork1)
        let changeNetwork2 = BlockProcedure {
            network.flags = .reachable
        }
        changeNetwork2.addDependency(delay2)

        wait(forAll: [delay1, changeNetwork1, delay2, changeNetwork2, procedure])
        PKAssertProcedureFinished(procedure)
    }
}

final class NetworkProcedureTests: ProcedureKitTestCase {

    typealias Target = NetworkDataProcedure

    var url: URL!
    var request: URLRequest!
    var resilience: DefaultNetworkResilience!
    var session: TestableURLSessionTaskFactory!
    var data: NetworkDataProcedure!
    var network: TestableNetworkReachability!
    var manager: Reachability.Manager!
    var clock: ManualClock!

    override func setUp() {
        super.setUp()
        url = URL(string: "http://procedure.kit.run")!
        request = URLRequest(url: url)
        resilience = DefaultNetworkResilience(backoffStrategy: .constant(1.0), requestTimeout: 1.0)
        session = TestableURLSessionTaskFactory()
        data = NetworkDataProcedure(session: session, request: request)
        network = TestableNetworkReachability()
        manager = Reachability.Manager(network)
        clock = ManualClock()
    }

    override func tearDown() {
        network = nil
        manager = nil
        clock = nil
        super.tearDown()
    }

    var createNetworkProcedure: @Sendable () -> Target {
        let session = self.session!
        let request = self.request!
        return { Target(session: session, request: request) }
    }

    /// ProcedureKit's `wait(forAll:withTimeout:)` for a network procedure on ``clock``: once `fix` has finished, the
    /// backoff before the second attempt passes on the clock; then it waits for every procedure.
    private func wait(
        forAll procedures: [Procedure], passingBackoffAfter fix: Procedure, withTimeout timeout: TimeInterval = 3,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let fixed = XCTestExpectation(description: "\(fix.procedureName) finished")
        fix.addDidFinishBlockObserver { _, _ in fixed.fulfill() }
        addCompletionBlockTo(procedures: procedures)
        run(operations: procedures)
        XCTAssertEqual(XCTWaiter().wait(for: [fixed], timeout: timeout), .completed, file: file, line: line)
        // The clock's first two actions are the first attempt's timeout and the backoff (scheduled once the first
        // attempt failed); both are due after 1 s.
        let deadline = Date().addingTimeInterval(timeout)
        while clock.totalScheduledActionCount < 2, Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
        XCTAssertGreaterThanOrEqual(
            clock.totalScheduledActionCount, 2, "no backoff was scheduled", file: file, line: line)
        clock.advance(by: 1.0)
        waitForPendingExpectations(timeout: timeout)
    }

    func test__reachable_network_does_not_start_notifier() {
        let procedure = NetworkProcedure<Target>(monitor: manager.monitor, body: createNetworkProcedure)
        wait(for: procedure)
        PKAssertProcedureFinished(procedure)
        XCTAssertFalse(network.didStartNotifier)
    }

    func test__waits_for_reachability_change_before_retrying() {
        session.returnedError = NSError(domain: NSURLErrorDomain, code: NSURLErrorNotConnectedToInternet, userInfo: nil)
        network.flags = .connectionRequired
        let session = self.session!
        let network = self.network!
        let delay = DelayProcedure(by: 0.1)
        let makeSessionSuccessful = BlockProcedure { session.returnedError = nil }
        makeSessionSuccessful.addDependency(delay)
        let makeNetworkReachable = BlockProcedure { network.flags = .reachable }
        makeNetworkReachable.addDependency(makeSessionSuccessful)

        let procedure = NetworkProcedure<Target>(
            resilience: resilience, monitor: manager.monitor, body: createNetworkProcedure)
        delay.addDependency(procedure.current!)

        wait(forAll: [procedure, delay, makeSessionSuccessful, makeNetworkReachable])
        PKAssertProcedureFinished(procedure)
        XCTAssertEqual(procedure.count, 2)
        XCTAssertTrue(network.didStopNotifier)
    }

    func test__does_not_wait_for_reachability_if_transient_error() {
        session.returnedError = NSError(domain: NSURLErrorDomain, code: NSURLErrorNetworkConnectionLost, userInfo: nil)
        let session = self.session!

        let delay = DelayProcedure(by: 0.1)
        let makeSessionSuccessful = BlockProcedure { session.returnedError = nil }
        makeSessionSuccessful.addDependency(delay)

        let procedure = NetworkProcedure<Target>(
            resilience: resilience, monitor: manager.monitor, clock: clock, body: createNetworkProcedure)
        delay.addDependency(procedure.current!)

        wait(
            forAll: [procedure, delay, makeSessionSuccessful], passingBackoffAfter: makeSessionSuccessful,
            withTimeout: 4)
        PKAssertProcedureFinished(procedure)
        XCTAssertEqual(procedure.count, 2)
        XCTAssertFalse(network.didStartNotifier)
    }

    func test__retry_server_error() {
        session.returnedResponse = HTTPURLResponse(url: url, statusCode: 500, httpVersion: nil, headerFields: nil)
        let session = self.session!
        let url = self.url!

        let delay = DelayProcedure(by: 0.1)
        let makeSessionSuccessful = BlockProcedure {
            session.returnedResponse = HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: nil)
        }
        makeSessionSuccessful.addDependency(delay)

        let procedure = NetworkProcedure<Target>(
            resilience: resilience, monitor: manager.monitor, clock: clock, body: createNetworkProcedure)
        procedure.log.severity = .info
        delay.addDependency(procedure.current!)

        wait(
            forAll: [procedure, delay, makeSessionSuccessful], passingBackoffAfter: makeSessionSuccessful,
            withTimeout: 4)
        PKAssertProcedureFinished(procedure)
        XCTAssertEqual(procedure.count, 2)
    }

    func test__retry_client_error_too_many_requests() {
        session.returnedResponse = HTTPURLResponse(
            url: url, statusCode: HTTPStatusCode.tooManyRequests.rawValue, httpVersion: nil, headerFields: nil)
        let session = self.session!
        let url = self.url!

        let delay = DelayProcedure(by: 0.1)
        let makeSessionSuccessful = BlockProcedure {
            session.returnedResponse = HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: nil)
        }
        makeSessionSuccessful.addDependency(delay)

        let procedure = NetworkProcedure<Target>(
            resilience: resilience, monitor: manager.monitor, clock: clock, body: createNetworkProcedure)
        procedure.log.severity = .info
        delay.addDependency(procedure.current!)

        wait(
            forAll: [procedure, delay, makeSessionSuccessful], passingBackoffAfter: makeSessionSuccessful,
            withTimeout: 4)
        PKAssertProcedureFinished(procedure)
        XCTAssertEqual(procedure.count, 2)
    }

    // Payload Injection

    func test__payload_is_injected() {
        let procedure = NetworkProcedure<Target>(body: createNetworkProcedure)
        let didReceivePayload = Flag()
        let transform = TransformProcedure<Data, Bool> { data in
            didReceivePayload.set()
            return true
        }.injectPayload(fromNetwork: procedure)

        wait(for: procedure, transform)
        PKAssertProcedureFinished(procedure)
        XCTAssertTrue(didReceivePayload.isSet)
    }

    func test__payload_injection_error() {
        session.returnedData = nil
        let procedure = NetworkProcedure<Target>(body: createNetworkProcedure)
        let didReceivePayload = Flag()
        let transform = TransformProcedure<Data, Bool> { data in
            didReceivePayload.set()
            return true
        }.injectPayload(fromNetwork: procedure)

        wait(for: procedure, transform)
        PKAssertProcedureCancelled(transform, withErrors: true)
        XCTAssertEqual(transform.errors.count, 1)
        XCTAssertFalse(didReceivePayload.isSet)
    }
}
