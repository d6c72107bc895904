import Foundation
import PKCore
import Synchronization
import XCTest

/// A group that records whether it executed: ProcedureKit's `TestGroupProcedure`.
open class TestGroupProcedure: GroupProcedure, @unchecked Sendable {
    // @unchecked Sendable: `executed` is atomic; the superclass guards its own state.
    private let executed = Atomic<Bool>(false)

    /// `true` once `execute()` has been called.
    public var didExecute: Bool { executed.load(ordering: .acquiring) }

    /// Records the call, then calls `super`.
    open override func execute() {
        executed.store(true, ordering: .releasing)
        super.execute()
    }
}

/// ``ProcedureKitTestCase`` with a group of five test procedures for each test: ProcedureKit's `GroupTestCase`.
open class GroupTestCase: ProcedureKitTestCase {

    /// The group's children, created for each test.
    public var children: [TestProcedure]!
    /// A group of ``children``.
    public var group: TestGroupProcedure!

    /// `count` test procedures named `"Child: <n>"`, each finishing with its own `TestError` when `shouldError`,
    /// after `duration` seconds.
    public func createTestProcedures(count: Int = 5, shouldError: Bool = false, duration: TimeInterval = 0.000_001)
        -> [TestProcedure]
    {
        (0..<count).map { index in
            TestProcedure(name: "Child: \(index)", delay: duration, error: shouldError ? TestError() : nil)
        }
    }

    /// Creates the children and the group.
    open override func setUp() {
        super.setUp()
        children = createTestProcedures()
        group = TestGroupProcedure(operations: children)
    }

    /// Cancels the group, then tears down as ``ProcedureKitTestCase`` does.
    open override func tearDown() {
        group?.cancel()
        children = nil
        group = nil
        super.tearDown()
    }
}
