import Foundation

/// The scheduler's bookkeeping for one ``ProcedureQueue``, guarded by the queue's mutex.
struct ProcedureQueueState {
    /// Every unfinished operation on the queue, held strongly.
    var operations: [ObjectIdentifier: Operation] = [:]
    /// Operations whose dependencies have finished, waiting for a slot.
    var ready = ReadyQueue()
    /// Operations started and not yet finished.
    var running = 0
    /// Operations enqueued and still waiting for dependencies.
    var waiting = 0
    var maxConcurrentOperationCount = OperationQueue.defaultMaxConcurrentOperationCount
    var isSuspended = false
    var qualityOfService = QualityOfService.default
    var underlyingQueue: DispatchQueue?
    var name: String?
    weak var delegate: (any ProcedureQueueDelegate)?
    var stallCheckScheduled = false

    /// Whether another ready operation may start now.
    var hasFreeSlot: Bool {
        !isSuspended && (maxConcurrentOperationCount < 0 || running < maxConcurrentOperationCount)
    }

    /// Nothing runs or is ready, yet something waits: possibly a dependency cycle.
    var isStalled: Bool {
        running == 0 && ready.isEmpty && waiting > 0 && !isSuspended
    }

    var dispatchQueue: DispatchQueue {
        underlyingQueue ?? DispatchQueue.global(qos: qualityOfService.dispatchQoS)
    }
}

extension QualityOfService {
    /// The Dispatch quality of service for this value.
    var dispatchQoS: DispatchQoS.QoSClass {
        switch self {
        case .userInteractive: .userInteractive
        case .userInitiated: .userInitiated
        case .utility: .utility
        case .background: .background
        case .default: .default
        @unknown default: .default
        }
    }
}
