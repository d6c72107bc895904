import Dispatch
import PKCapabilities
import PKTesting

/// A capability of its own type (so its authorizations have their own exclusivity category) whose requests are
/// held until released, recording how many were in progress at once.
final class HeldRequestCapability: CapabilityProtocol {
    typealias Status = Capability.VoidStatus

    private let held = PKMutex<[@Sendable () -> Void]>([])
    private let inProgress = PKMutex((now: 0, most: 0, total: 0))

    var requirement: Void? { () }
    func isAvailable() -> Bool { true }
    func getAuthorizationStatus(_ completion: @escaping @Sendable (Capability.VoidStatus) -> Void) {
        completion(Capability.VoidStatus())
    }

    func requestAuthorization(withCompletion completion: @escaping @Sendable () -> Void) {
        inProgress.withLock {
            $0.now += 1
            $0.total += 1
            $0.most = max($0.most, $0.now)
        }
        held.withLock { $0.append(completion) }
    }

    /// Answers every held request.
    func releaseAll() {
        let completions = held.withLock { held in
            defer { held.removeAll() }
            return held
        }
        for completion in completions {
            inProgress.withLock { $0.now -= 1 }
            completion()
        }
    }

    var heldCount: Int { held.withLock { $0.count } }
    var mostAtOnce: Int { inProgress.withLock { $0.most } }
    var requestCount: Int { inProgress.withLock { $0.total } }
}

/// Another type with the same behaviour, so its authorizations are in a different category.
final class OtherHeldRequestCapability: CapabilityProtocol {
    typealias Status = Capability.VoidStatus
    let inner = HeldRequestCapability()

    var requirement: Void? { () }
    func isAvailable() -> Bool { true }
    func getAuthorizationStatus(_ completion: @escaping @Sendable (Capability.VoidStatus) -> Void) {
        inner.getAuthorizationStatus(completion)
    }
    func requestAuthorization(withCompletion completion: @escaping @Sendable () -> Void) {
        inner.requestAuthorization(withCompletion: completion)
    }
}

/// A faulty capability that calls each completion handler twice.
struct DoubleAnsweringCapability: CapabilityProtocol {
    typealias Status = TestableCapability.Status

    var requirement: TestableCapability.Status.Requirement? { .minimum }
    func isAvailable() -> Bool { true }
    func getAuthorizationStatus(_ completion: @escaping @Sendable (TestableCapability.Status) -> Void) {
        completion(.minimumAuthorized)
        completion(.denied)
    }
    func requestAuthorization(withCompletion completion: @escaping @Sendable () -> Void) {
        completion()
        DispatchQueue.global().async { completion() }
    }
}

/// A confirmation provider that keeps each question open until the test answers it.
final class HeldConfirmationProvider: ConfirmationProvider {
    private let pending = PKMutex<[@Sendable (ConfirmationAnswer) -> Void]>([])
    private let asked = PKMutex(0)

    func confirm(title: String, message: String, completion: @escaping @Sendable (ConfirmationAnswer) -> Void) {
        asked.withLock { $0 += 1 }
        pending.withLock { $0.append(completion) }
    }

    var askCount: Int { asked.withLock { $0 } }
    var openQuestions: Int { pending.withLock { $0.count } }

    func answerAll(_ answer: ConfirmationAnswer) {
        let completions = pending.withLock { pending in
            defer { pending.removeAll() }
            return pending
        }
        for completion in completions { completion(answer) }
    }
}
