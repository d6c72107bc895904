import Dispatch
import Foundation

/// A fake URL session task for tests: ProcedureKit's `TestableURLSessionTask`. It records ``didResume`` and
/// ``didCancel``, and calls its completion block once: ``delay`` seconds after ``resume()``, on a global dispatch
/// queue, or at once on ``cancel()`` (which wins if it comes first).
///
/// ``TestableURLSessionTaskFactory`` makes these. As in ProcedureKit, PKTesting does not declare its conformance to
/// PKNetwork's task protocols; a test target does, in one line:
///
/// ```swift
/// extension TestableURLSessionTask: URLSessionTaskProtocol, NetworkDataTask, NetworkDownloadTask, NetworkUploadTask {}
/// ```
///
/// Thread-safe: its records are guarded by a lock, and the completion runs outside it.
public final class TestableURLSessionTask: Equatable, Sendable {

    /// The completion block's type; it receives the task (read ``didCancel`` to tell a cancel from a completion).
    public typealias CompletionBlock = @Sendable (TestableURLSessionTask) -> Void

    private struct State {
        var didResume = false
        var didCancel = false
        var didFinish = false
    }

    /// How long after ``resume()`` the completion runs.
    public let delay: TimeInterval
    /// The task's identity: two tasks are equal when they are the same task.
    public let uuid = UUID()

    private let completion: CompletionBlock
    /// Whether the task has resumed, been cancelled, or run its completion; the completion runs outside it.
    private let state = PKMutex(State())

    /// Creates a task that completes `delay` seconds (1 µs by default) after it resumes.
    public init(delay: TimeInterval = 0.000_001, completion: @escaping CompletionBlock) {
        self.delay = delay.isFinite ? Swift.max(0, delay) : 0
        self.completion = completion
    }

    /// Two tasks are equal when they have the same ``uuid``.
    public static func == (lhs: TestableURLSessionTask, rhs: TestableURLSessionTask) -> Bool {
        lhs.uuid == rhs.uuid
    }

    /// Whether ``resume()`` was called.
    public var didResume: Bool { state.withLock { $0.didResume } }
    /// Whether ``cancel()`` was called before the task completed.
    public var didCancel: Bool { state.withLock { $0.didCancel } }

    /// Schedules the completion ``delay`` seconds from now, on a global queue.
    public func resume() {
        state.withLock { $0.didResume = true }
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in
            if takeFinish(cancelling: false) { completion(self) }
        }
    }

    /// Completes the task at once, as cancelled, unless it has completed already.
    public func cancel() {
        if takeFinish(cancelling: true) { completion(self) }
    }

    /// Marks the task finished (and cancelled, for a cancel); `false` when it had finished already.
    private func takeFinish(cancelling: Bool) -> Bool {
        state.withLock { state in
            guard !state.didFinish else { return false }
            state.didFinish = true
            if cancelling { state.didCancel = true }
            return true
        }
    }
}
