import PKCapabilities
import Testing

/// Swift Testing: records an issue unless the status response is `expected`
/// (``ProcedureCheck/authorizationStatus(_:expected:)``).
public func PKExpectGetAuthorizationStatus<Status: Equatable>(
    _ actual: (isAvailable: Bool, status: Status)?, expected: (isAvailable: Bool, status: Status),
    sourceLocation: SourceLocation = #_sourceLocation
) {
    for failure in ProcedureCheck.authorizationStatus(actual, expected: expected) {
        Issue.record(Comment(rawValue: failure), sourceLocation: sourceLocation)
    }
}

/// Swift Testing: records an issue unless `capability` was checked and never asked to authorize
/// (``ProcedureCheck/testCapabilityStatusChecked(_:)``).
public func PKExpectTestCapabilityStatusChecked(
    _ capability: TestableCapability, sourceLocation: SourceLocation = #_sourceLocation
) {
    for failure in ProcedureCheck.testCapabilityStatusChecked(capability) {
        Issue.record(Comment(rawValue: failure), sourceLocation: sourceLocation)
    }
}

/// Swift Testing: records an issue unless `capability` was asked to authorize (exactly `count` times, when given).
public func PKExpectTestCapabilityAuthorizationRequested(
    _ capability: TestableCapability, count: Int? = nil, sourceLocation: SourceLocation = #_sourceLocation
) {
    for failure in ProcedureCheck.testCapabilityAuthorizationRequested(capability, count: count) {
        Issue.record(Comment(rawValue: failure), sourceLocation: sourceLocation)
    }
}
