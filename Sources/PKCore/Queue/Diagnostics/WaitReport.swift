/// What a ``ProcedureQueue`` holds that has not finished, and what each of those is waiting for: a snapshot taken
/// by ``ProcedureQueue/waitReport()``.
///
/// ```swift
/// print(queue.waitReport())
/// // Queue "pipeline": 1 running of at most 4, 2 waiting
/// // - Transform #2: executing
/// // - Combine: waiting for dependencies: Load (on no queue), Transform #2 (executing)
/// ```
///
/// The report reads each procedure in turn, so a busy queue may have moved on between two entries; each entry is
/// consistent in itself.
public struct WaitReport: Sendable, CustomStringConvertible {
    /// The queue's name.
    public let queueName: String?
    /// Whether the queue was suspended (nothing new starts while it is).
    public let isSuspended: Bool
    /// The queue's width: how many operations may run at once (negative: no limit).
    public let maxConcurrentOperationCount: Int
    /// Every unfinished operation on the queue, in no particular order, with what it waits for.
    public let entries: [WaitingProcedure]

    /// Creates a report.
    public init(
        queueName: String?, isSuspended: Bool, maxConcurrentOperationCount: Int, entries: [WaitingProcedure]
    ) {
        self.queueName = queueName
        self.isSuspended = isSuspended
        self.maxConcurrentOperationCount = maxConcurrentOperationCount
        self.entries = entries
    }

    /// The entries that are not running (waiting for dependencies, conditions, categories or a slot).
    public var waiting: [WaitingProcedure] {
        entries.filter { entry in
            switch entry.reason {
            case .starting, .executing: false
            default: true
            }
        }
    }

    /// One line for the queue, then one per entry.
    public var description: String {
        let running = entries.count - waiting.count
        let width = maxConcurrentOperationCount < 0 ? "no limit" : "at most \(maxConcurrentOperationCount)"
        var lines = [
            "Queue \"\(queueName ?? "unnamed")\"\(isSuspended ? " (suspended)" : ""): \(running) running of \(width), "
                + "\(entries.count - running) waiting"
        ]
        lines += entries.map { "- \($0)" }
        return lines.joined(separator: "\n")
    }
}

/// An unfinished operation on a queue and what it is waiting for: an entry of a ``WaitReport``.
public struct WaitingProcedure: Sendable, CustomStringConvertible {
    /// The operation's name (a procedure's ``Procedure/procedureName``).
    public let name: String
    /// The procedure's identity; `nil` for a plain `Operation`.
    public let identity: Procedure.Identity?
    /// What it is waiting for.
    public let reason: Reason

    /// Creates an entry.
    public init(name: String, identity: Procedure.Identity?, reason: Reason) {
        self.name = name
        self.identity = identity
        self.reason = reason
    }

    /// What an operation on a queue is waiting for.
    public enum Reason: Sendable, Equatable, CustomStringConvertible {
        /// Dependencies that have not finished, each with where it stands.
        case dependencies([WaitedDependency])
        /// Its conditions, named, being evaluated.
        case conditions([String])
        /// The mutually exclusive categories it asked for and has not been granted yet.
        case mutualExclusion([String])
        /// It is ready and waits for a free slot (the queue is at its width, or suspended).
        case slot
        /// It is starting: its WillExecute observers are running or holding it.
        case starting
        /// It is executing (or finishing).
        case executing

        /// In words.
        public var description: String {
            switch self {
            case .dependencies(let dependencies):
                "waiting for dependencies: " + dependencies.map(\.description).joined(separator: ", ")
            case .conditions(let names): "evaluating conditions: " + names.joined(separator: ", ")
            case .mutualExclusion(let categories):
                "waiting for mutually exclusive categories: " + categories.joined(separator: ", ")
            case .slot: "ready, waiting for a free slot"
            case .starting: "starting (WillExecute observers)"
            case .executing: "executing"
            }
        }
    }

    /// `"<name>: <reason>"`.
    public var description: String { "\(name): \(reason)" }
}

/// A dependency that has not finished, and where it stands: part of ``WaitingProcedure/Reason/dependencies(_:)``.
public struct WaitedDependency: Sendable, Equatable, CustomStringConvertible {
    /// The dependency's name.
    public let name: String
    /// Where it stands.
    public let standing: Standing

    /// Creates an entry.
    public init(name: String, standing: Standing) {
        self.name = name
        self.standing = standing
    }

    /// Where an unfinished dependency stands.
    public enum Standing: Sendable, Equatable, CustomStringConvertible {
        /// A procedure on no queue: it will never run until it is added to one. (A group's child that the group
        /// has not added yet, because the group has not started, stands here too.)
        case notEnqueued
        /// A procedure on a queue, named if that queue has a name, not started yet.
        case waiting(queue: String?)
        /// A procedure executing (or starting, or finishing).
        case executing
        /// A plain `Operation` that is executing.
        case operationExecuting
        /// A plain `Operation` that has not started: it runs only if something (an `OperationQueue`, a
        /// ``ProcedureQueue``, a call to `start()`) starts it.
        case operationNotStarted

        /// In words.
        public var description: String {
            switch self {
            case .notEnqueued: "on no queue"
            case .waiting(let queue): queue.map { "waiting on queue \"\($0)\"" } ?? "waiting on a queue"
            case .executing: "executing"
            case .operationExecuting: "plain operation, executing"
            case .operationNotStarted: "plain operation, not started"
            }
        }
    }

    /// `"<name> (<standing>)"`.
    public var description: String { "\(name) (\(standing))" }
}
