// Re-creates ProcedureKit's Tests/ProcedureKitNetworkTests/NetworkReachabilityTests.swift (ProcedureKit 5.x).
//
// Changes besides imports:
// - `ReachabilityManagerTests` is `final`.
// - test__when_connected_block_is_run: `waitForExpectations(timeout:handler:)` (main-actor isolated in Swift 6's
//   XCTest) is `XCTWaiter().wait(for:timeout:)`; the block records into a lock-protected `Flag`.
//
// Left out:
// - DeviceReachabilityTests (test__notifierIsRunning_is_true_when_running,
//   test__notifierIsRunning_is_false_when_not_running, test__did_change_reachability_informs_delegate, test__check):
//   they test `Reachability.Device`, ProcedureKit's SystemConfiguration-backed reachability source (Apple-only),
//   through `@testable` internals (`notifierIsRunning`, `didChangeReachability(flags:)`, `check(reachability:on:)`,
//   `defaultRouteReachability`) with `SCNetworkReachabilityFlags`. PKNetwork has no such type: its Linux source is
//   `InterfaceConnectivityProvider`, a `ConnectivityProvider` with no flags (tested in PKNetworkTests).

import Foundation
import PKNetwork
import PKTesting
import XCTest

final class ReachabilityManagerTests: ProcedureKitTestCase {

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

    func test__delegate_is_set() {
        XCTAssertNotNil(network.delegate)
    }

    func test__when_connected_block_is_run() {
        let didRunBlock = Flag()
        let exp = expectation(description: "Test: \(#function)")

        manager.whenReachable(via: .any) {
            didRunBlock.set()
            exp.fulfill()
        }

        XCTAssertEqual(XCTWaiter().wait(for: [exp], timeout: 3), .completed)
        XCTAssertTrue(didRunBlock.isSet)
        XCTAssertTrue(network.didStopNotifier)
    }
}
