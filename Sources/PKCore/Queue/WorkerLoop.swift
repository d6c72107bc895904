import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The loop a queue's dispatched work runs in, with a one-item hand-off.
///
/// When the procedure a worker is running finishes on that worker, the work its finish makes ready (its
/// dependents, or the next ready item taking its slot) is handed to the same worker to run next, instead of
/// being dispatched and waking another thread. Only one item is handed off per finish; the rest is dispatched as
/// usual. Work handed off always targets the same dispatch queue, so `underlyingQueue` and quality of service
/// still hold. The per-thread state lives on the worker's stack and is reached through a thread-specific key.
enum WorkerLoop {

    private struct Slot {
        let target: ObjectIdentifier
        /// The procedure this loop is starting, while it is being started.
        var current: ObjectIdentifier?
        /// Set while `current` finishes on this thread: the moment a hand-off is safe.
        var accepting = false
        var handoff: QueueMember?
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    private static var slot: UnsafeMutablePointer<Slot>? {
        pthread_getspecific(key)?.assumingMemoryBound(to: Slot.self)
    }

    /// Dispatches `member` onto `target`, where it runs in a worker loop.
    static func launch(_ member: QueueMember, on target: DispatchQueue) {
        if offer(member, on: target) { return }
        target.async { run(member, on: target) }
    }

    private static func run(_ first: QueueMember, on target: DispatchQueue) {
        var state = Slot(target: ObjectIdentifier(target))
        withUnsafeMutablePointer(to: &state) { slot in
            let previous = pthread_getspecific(key)
            pthread_setspecific(key, slot)
            defer { pthread_setspecific(key, previous) }
            var next: QueueMember? = first
            while let member = next {
                if case .procedure(let procedure) = member { slot.pointee.current = ObjectIdentifier(procedure) }
                member.start()
                slot.pointee.current = nil
                slot.pointee.accepting = false
                next = slot.pointee.handoff
                slot.pointee.handoff = nil
            }
        }
    }

    /// Takes `member` as this thread's next item when the procedure this loop runs is finishing here.
    private static func offer(_ member: QueueMember, on target: DispatchQueue) -> Bool {
        guard let slot, slot.pointee.accepting, slot.pointee.handoff == nil,
            slot.pointee.target == ObjectIdentifier(target)
        else { return false }
        slot.pointee.handoff = member
        return true
    }

    /// Called as `procedure` finishes: hand-offs are accepted from now until its loop iteration ends, if this
    /// thread's loop is the one running it.
    static func procedureIsFinishing(_ procedure: Procedure) {
        guard let slot, slot.pointee.current == ObjectIdentifier(procedure) else { return }
        slot.pointee.accepting = true
    }
}
