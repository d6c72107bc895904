import Foundation
import PKTesting

/// A category no other test uses: the exclusivity manager is process-wide and tests run in parallel.
func uniqueCategory(_ label: String = #function) -> String {
    "\(label)-\(UUID().uuidString)"
}

extension Procedure {
    /// The first error as a `ProcedureKitError`, if it is one.
    var kitError: ProcedureKitError? { error as? ProcedureKitError }
}

extension Pending where T == ConditionResult {
    /// `"satisfied"`, `"ignored"`, `"failed"` or `"pending"`, for comparing outputs.
    var outcome: String {
        switch self {
        case .pending: "pending"
        case .ready(.success(true)): "satisfied"
        case .ready(.success(false)): "ignored"
        case .ready(.failure): "failed"
        }
    }
}
