import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How a network procedure stops its task when it is cancelled (or timed out).
enum NetworkTaskCancellation {

    /// Whether `task` may be cancelled with ``NetworkTask/cancel()``: on Linux, not a bare `URLSessionDataTask` (an
    /// upload task is one too), whose session may have a URL cache, so that cancelling it may crash the process (see
    /// ``CacheFreeSessionTask``). Such a task is abandoned instead: the procedure finishes at once, cancelled, and the
    /// task runs on until it completes (or its request times out), its outcome ignored. Everywhere else, and for the
    /// tasks of ``ManagedNetworkSession``, of a ``URLSessionAdapter`` whose session has no cache, of download tasks and
    /// of test doubles, `true`.
    static func mayCancel(_ task: any NetworkTask) -> Bool {
        #if canImport(FoundationNetworking)
            return !(task is URLSessionDataTask)
        #else
            return true
        #endif
    }
}
