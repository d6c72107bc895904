import Foundation
import PKCore

/// A task that completes with an error, once, when resumed or cancelled: what a ``ManagedNetworkSession`` returns
/// after invalidation.
final class FailedNetworkTask: NetworkDataTask, NetworkDownloadTask, NetworkUploadTask {
    /// The completion, taken (under this lock) by whichever of resume or cancel comes first.
    private let completion: PKMutex<(@Sendable () -> Void)?>

    init(completion: @escaping @Sendable () -> Void) {
        self.completion = PKMutex(completion)
    }

    func resume() { complete() }
    func cancel() { complete() }

    private func complete() {
        let completion = self.completion.withLock { completion in
            defer { completion = nil }
            return completion
        }
        completion?()
    }
}
