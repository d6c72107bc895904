import PKCapabilities

extension ProcedureCheck {

    /// Checks a capability status response (a ``/PKCapabilities/GetAuthorizationStatusProcedure``'s output or
    /// completion value) against `expected`: ProcedureKit's `XCTAssertGetAuthorizationStatus`.
    public static func authorizationStatus<Status: Equatable>(
        _ actual: (isAvailable: Bool, status: Status)?, expected: (isAvailable: Bool, status: Status)
    ) -> [String] {
        guard let actual else { return ["no status response (the output is pending or a failure)"] }
        var failures: [String] = []
        if actual.isAvailable != expected.isAvailable {
            failures.append("isAvailable is \(actual.isAvailable); expected \(expected.isAvailable)")
        }
        if actual.status != expected.status {
            failures.append("the status is \(actual.status); expected \(expected.status)")
        }
        return failures
    }

    /// Checks that `capability` was asked for its availability and status, and never asked to authorize:
    /// ProcedureKit's `XCTAssertTestCapabilityStatusChecked`.
    public static func testCapabilityStatusChecked(_ capability: TestableCapability) -> [String] {
        var failures: [String] = []
        if !capability.didCheckIsAvailable { failures.append("the capability's availability was not checked") }
        if !capability.didCheckAuthorizationStatus { failures.append("the capability's status was not checked") }
        if capability.didRequestAuthorization { failures.append("the capability was asked to authorize") }
        return failures
    }

    /// Checks that `capability` was asked to authorize exactly `count` times (at least once when `count` is
    /// `nil`).
    public static func testCapabilityAuthorizationRequested(_ capability: TestableCapability, count: Int? = nil)
        -> [String]
    {
        let actual = capability.requestCount
        if let count {
            return actual == count ? [] : ["the capability was asked to authorize \(actual) time(s); expected \(count)"]
        }
        return actual > 0 ? [] : ["the capability was never asked to authorize"]
    }
}
