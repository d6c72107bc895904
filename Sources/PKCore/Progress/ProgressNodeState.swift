/// How much one child weighs in its parent's roll-up, and how much of that is done.
///
/// A procedure that reports units weighs its total; any other weighs 1. A roll-up weighs the sum of its
/// children's weights. A finished node's work is all done.
struct ProgressWeight: Sendable, Equatable {
    var total: Double
    var done: Double
    var isFinished: Bool

    static let nothing = ProgressWeight(total: 0, done: 0, isFinished: true)
}

/// The progress of one procedure or queue: what it reported itself, or the roll-up of its children, with the
/// handlers to tell of changes. A value type with no locks: ``ProgressNode`` feeds it events under its lock and
/// carries out the returned ``Effects`` after it.
///
/// Roll-ups keep sums, not their children: a child tells its parent how its weight changed (from, to), and those
/// changes commute, so children may report from any threads in any order.
struct ProgressNodeState {

    /// What the node's progress is made of.
    enum Mode: Sendable {
        /// Its own reports: a procedure that is not a group.
        case own
        /// The sum of its children's weights: a group, a batch.
        case sum
        /// The latest child alone: a repeat or a retry, whose number of attempts is not known in advance.
        case latest
        /// The sum of its children's weights since the last moment all of them had finished: a queue, which
        /// starts counting afresh once it has gone idle.
        case queue
    }

    /// A handler told of changes; `isNew` until it has been given the current value once.
    struct Subscriber {
        let id: UInt64
        let handler: @Sendable (ProcedureProgress) -> Void
        var isNew: Bool
    }

    /// How a child's weight changed, with its value now, its revision (changes of one child are numbered, so
    /// that a parent following one child, `.latest`, can ignore one that arrives after a later one) and the
    /// parent's generation it was adopted in (a `.queue` parent ignores a change from before it started afresh).
    struct Change {
        let from: ProgressWeight
        let to: ProgressWeight
        let value: ProcedureProgress
        let revision: UInt64
        let generation: UInt64
    }

    /// What to do after the lock: tell the parent how this node's weight changed, and start delivering.
    struct Effects {
        var parent: ProgressNode?
        var change: Change?
        /// This thread became the node's deliverer and must call ``ProgressNode`` `deliver()`.
        var startDelivering = false
    }

    let mode: Mode
    private(set) var isFinished: Bool
    // Its own reports (mode `own`).
    private var units: (completed: Int64, total: Int64)?
    private var fraction: Double?
    private var message: String?
    // The roll-up (modes `sum` and `queue`).
    private var sum = ProgressWeight(total: 0, done: 0, isFinished: false)
    private var unfinishedChildren = 0
    // A queue's count of fresh starts, and whether it has counted a child since the last one. A child's changes
    // are computed under its own lock and reach the queue in any order: one computed before the queue started
    // afresh (its finish landed first, then a new child was adopted) belongs to sums that are gone.
    private var generation: UInt64 = 0
    private var generationHasChildren = false
    // The latest child (mode `latest`), and the revision of its change last taken.
    private var latest: (child: ObjectIdentifier, weight: ProgressWeight, value: ProcedureProgress, revision: UInt64)?
    // The parent, the weight it was last told of, and the number of the last change sent.
    private(set) weak var parent: ProgressNode?
    private var sent: ProgressWeight?
    /// The parent's generation this node was adopted in, sent with every change.
    private var parentGeneration: UInt64 = 0
    /// The value the parent was last told of: a change that alters neither it nor the weight is not sent (linking
    /// a deep nest would otherwise send each link all the way up).
    private var sentValue: ProcedureProgress?
    private var revision: UInt64 = 0
    // Delivery.
    private var subscribers: [Subscriber] = []
    private var nextSubscriber: UInt64 = 1
    private var isDelivering = false
    private var needsDelivery = false
    private var delivered: ProcedureProgress?

    init(mode: Mode, isFinished: Bool) {
        self.mode = mode
        self.isFinished = isFinished
    }

    // MARK: - Reading

    /// The progress now.
    var value: ProcedureProgress {
        switch mode {
        case .own:
            if let units {
                let completed = isFinished ? units.total : Swift.min(Swift.max(units.completed, 0), units.total)
                return ProcedureProgress(
                    fractionCompleted: Double(completed) / Double(units.total), completedUnitCount: completed,
                    totalUnitCount: units.total, message: message, isFinished: isFinished)
            }
            return ProcedureProgress(
                fractionCompleted: isFinished ? 1 : fraction ?? 0, message: message, isFinished: isFinished)
        case .sum, .queue:
            let total = sum.total.rounded()
            let done = isFinished ? total : Swift.min(sum.done, total).rounded(.down)
            let fraction = isFinished ? 1 : (sum.total > 0 ? sum.done / sum.total : 0)
            return ProcedureProgress(
                fractionCompleted: fraction, completedUnitCount: Self.units(done), totalUnitCount: Self.units(total),
                message: message, isFinished: isFinished)
        case .latest:
            var value = latest?.value ?? .notStarted
            if isFinished {
                value.fractionCompleted = 1
                value.completedUnitCount = value.totalUnitCount
            }
            value.isFinished = isFinished
            return value
        }
    }

    /// What the node weighs in its parent's roll-up.
    var weight: ProgressWeight {
        var weight: ProgressWeight
        switch mode {
        case .own:
            if let units {
                weight = ProgressWeight(
                    total: Double(units.total), done: Double(Swift.min(Swift.max(units.completed, 0), units.total)),
                    isFinished: false)
            } else {
                weight = ProgressWeight(total: 1, done: fraction ?? 0, isFinished: false)
            }
        case .sum, .queue:
            weight = sum.total > 0 ? sum : ProgressWeight(total: 1, done: 0, isFinished: false)
        case .latest:
            weight = latest?.weight ?? ProgressWeight(total: 1, done: 0, isFinished: false)
        }
        if isFinished {
            weight.done = weight.total
            weight.isFinished = true
        } else {
            weight.isFinished = false
        }
        return weight
    }

    /// A roll-up's units as an `Int64`: sums of large totals may pass `Int64.max` (as a `Double`, which would trap
    /// on conversion), and read as `Int64.max` then.
    static func units(_ value: Double) -> Int64 {
        guard value.isFinite, value > 0 else { return 0 }
        return value >= 9_223_372_036_854_774_784 ? .max : Int64(value)
    }

    // MARK: - Events

    /// The procedure reported units done of a total (a total of zero or less reports nothing but the message).
    mutating func report(completed: Int64, of total: Int64, message: String?) -> Effects {
        guard !isFinished, mode == .own else { return Effects() }
        if total > 0 {
            units = (completed, total)
            fraction = nil
        }
        if let message { self.message = message }
        return changed()
    }

    /// The procedure reported a fraction done.
    mutating func report(fraction: Double, message: String?) -> Effects {
        guard !isFinished, mode == .own else { return Effects() }
        if !fraction.isNaN { self.fraction = Swift.min(Swift.max(fraction, 0), 1) }
        units = nil
        if let message { self.message = message }
        return changed()
    }

    /// The procedure finished: its work is all done, and its handlers hear that one last time.
    mutating func finish() -> Effects {
        guard !isFinished else { return Effects() }
        isFinished = true
        return changed()
    }

    /// Children that finished before this node was made (a group watched late) count as done.
    mutating func countFinishedChildren(_ count: Int) -> Effects {
        guard count > 0, !isFinished, mode == .sum || mode == .queue else { return Effects() }
        sum.total += Double(count)
        sum.done += Double(count)
        return changed()
    }

    /// Becomes `parent`'s child in the parent's `generation` (see ``generationOfNextChild``), unless it is some
    /// node's child already: returns the weight, value and revision the parent starts from, or `nil`.
    mutating func adopt(
        by parent: ProgressNode, generation: UInt64 = 0
    ) -> (ProgressWeight, ProcedureProgress, UInt64)? {
        guard self.parent == nil, sent == nil else { return nil }
        self.parent = parent
        parentGeneration = generation
        let weight = weight
        let value = value
        sent = weight
        sentValue = value
        return (weight, value, revision)
    }

    /// The generation a child adopted now belongs to: a queue that is idle starts afresh with it.
    var generationOfNextChild: UInt64 {
        mode == .queue && unfinishedChildren == 0 && generationHasChildren ? generation + 1 : generation
    }

    /// A child was adopted, with this weight, value and revision (in ``generationOfNextChild``).
    mutating func childAdopted(
        _ child: ObjectIdentifier, weight: ProgressWeight, value: ProcedureProgress, revision: UInt64 = 0
    ) -> Effects {
        guard !isFinished else { return Effects() }
        switch mode {
        case .own:
            return Effects()
        case .sum, .queue:
            if mode == .queue, unfinishedChildren == 0 {
                // Idle (everything counted has finished): start counting afresh, exactly, whatever rounding the
                // sums gathered.
                sum = ProgressWeight(total: 0, done: 0, isFinished: false)
                if generationHasChildren { generation += 1 }
            }
            generationHasChildren = true
            sum.total += weight.total
            sum.done += weight.done
            if !weight.isFinished { unfinishedChildren += 1 }
        case .latest:
            // A finished child adopted after the current one (a repeat watched late, finding an earlier attempt)
            // does not replace it.
            if latest != nil, weight.isFinished { return Effects() }
            latest = (child, weight, value, revision)
        }
        if let message = value.message { self.message = message }
        return changed()
    }

    /// A child's weight changed.
    mutating func childChanged(_ child: ObjectIdentifier, _ change: Change) -> Effects {
        guard !isFinished else { return Effects() }
        switch mode {
        case .own:
            return Effects()
        case .sum, .queue:
            // A queue's change from before it started afresh: the sums it belonged to are gone.
            if mode == .queue, change.generation != generation { return Effects() }
            sum.total += change.to.total - change.from.total
            sum.done += change.to.done - change.from.done
            if change.from.isFinished != change.to.isFinished {
                unfinishedChildren += change.to.isFinished ? -1 : 1
            }
            if let message = change.value.message { self.message = message }
        case .latest:
            // Only the current child counts, and only a change later than the last one taken from it.
            guard let current = latest, current.child == child, change.revision > current.revision else {
                return Effects()
            }
            latest = (child, change.to, change.value, change.revision)
        }
        return changed()
    }

    // MARK: - Handlers

    /// Adds a handler; it is given the current value first.
    mutating func subscribe(_ handler: @escaping @Sendable (ProcedureProgress) -> Void) -> (UInt64, Effects) {
        let id = nextSubscriber
        nextSubscriber += 1
        subscribers.append(Subscriber(id: id, handler: handler, isNew: true))
        return (id, scheduleDelivery())
    }

    /// Removes a handler; returns it, to be released after the lock.
    mutating func unsubscribe(_ id: UInt64) -> Subscriber? {
        guard let index = subscribers.firstIndex(where: { $0.id == id }) else { return nil }
        return subscribers.remove(at: index)
    }

    /// The next value to deliver and the handlers to give it to, or `nil` when delivering is over (this thread
    /// then stops being the deliverer). Once a finished value has been delivered, the handlers are let go of: they
    /// are moved out with the delivery (`released`), to be released after the lock.
    mutating func nextDelivery() -> (value: ProcedureProgress, receivers: [Subscriber], released: [Subscriber])? {
        guard needsDelivery else {
            isDelivering = false
            return nil
        }
        needsDelivery = false
        let value = value
        let changed = value != delivered
        delivered = value
        let receivers = changed ? subscribers : subscribers.filter(\.isNew)
        for index in subscribers.indices { subscribers[index].isNew = false }
        let released = isFinished ? replaceValue(&subscribers, with: []) : []
        return (value, receivers, released)
    }

    // MARK: - Private

    /// After any change: what the parent must hear, and whether handlers must.
    private mutating func changed() -> Effects {
        var effects = scheduleDelivery()
        if let parent, let old = sent {
            let new = weight
            let value = value
            guard new != old || value != sentValue else { return effects }
            sent = new
            sentValue = value
            revision += 1
            effects.parent = parent
            effects.change = Change(
                from: old, to: new, value: value, revision: revision, generation: parentGeneration)
        }
        return effects
    }

    private mutating func scheduleDelivery() -> Effects {
        guard !subscribers.isEmpty else { return Effects() }
        needsDelivery = true
        guard !isDelivering else { return Effects() }
        isDelivering = true
        return Effects(startDelivering: true)
    }
}
