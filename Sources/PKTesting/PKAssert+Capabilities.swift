import PKCapabilities
import XCTest

/// XCTest: fails unless the status response is `expected` (``ProcedureCheck/authorizationStatus(_:expected:)``):
/// ProcedureKit's `XCTAssertGetAuthorizationStatus`.
public func PKAssertGetAuthorizationStatus<Status: Equatable>(
    _ actual: (isAvailable: Bool, status: Status)?, expected: (isAvailable: Bool, status: Status),
    file: StaticString = #filePath, line: UInt = #line
) {
    for failure in ProcedureCheck.authorizationStatus(actual, expected: expected) {
        XCTFail(failure, file: file, line: line)
    }
}

/// XCTest: fails unless `capability` was checked and never asked to authorize: ProcedureKit's
/// `XCTAssertTestCapabilityStatusChecked`.
public func PKAssertTestCapabilityStatusChecked(
    _ capability: TestableCapability, file: StaticString = #filePath, line: UInt = #line
) {
    for failure in ProcedureCheck.testCapabilityStatusChecked(capability) {
        XCTFail(failure, file: file, line: line)
    }
}

/// XCTest: fails unless `capability` was asked to authorize (exactly `count` times, when given).
public func PKAssertTestCapabilityAuthorizationRequested(
    _ capability: TestableCapability, count: Int? = nil, file: StaticString = #filePath, line: UInt = #line
) {
    for failure in ProcedureCheck.testCapabilityAuthorizationRequested(capability, count: count) {
        XCTFail(failure, file: file, line: line)
    }
}
