import PKCapabilities
import XCTest

/// ``ProcedureKitTestCase`` wired for a ``TestableCapability``: ProcedureKit's `TestableCapabilityTestCase`.
///
/// Each test gets a fresh ``capability``, a ``getAuthorizationStatus`` procedure and an ``authorize`` procedure
/// for it, and an ``authorizedFor`` condition already attached to ``ProcedureKitTestCase/procedure``. Change the
/// capability's knobs before running them.
open class TestableCapabilityTestCase: ProcedureKitTestCase {

    /// The capability, fresh for each test.
    public var capability: TestableCapability!
    /// A procedure reading the capability's status.
    public var getAuthorizationStatus: GetAuthorizationStatusProcedure<TestableCapability.Status>!
    /// A procedure requesting authorization.
    public var authorize: AuthorizeCapabilityProcedure<TestableCapability.Status>!
    /// The condition attached to ``ProcedureKitTestCase/procedure``.
    public var authorizedFor: AuthorizedFor<TestableCapability.Status>!

    /// Creates the capability, the procedures and the condition.
    open override func setUp() {
        super.setUp()
        capability = TestableCapability()
        getAuthorizationStatus = GetAuthorizationStatusProcedure(capability)
        authorize = AuthorizeCapabilityProcedure(capability)
        authorizedFor = AuthorizedFor(capability)
        procedure.add(condition: authorizedFor)
    }

    /// Cancels the procedures, then tears down as ``ProcedureKitTestCase`` does.
    open override func tearDown() {
        getAuthorizationStatus?.cancel()
        authorize?.cancel()
        capability = nil
        getAuthorizationStatus = nil
        authorize = nil
        authorizedFor = nil
        super.tearDown()
    }
}
