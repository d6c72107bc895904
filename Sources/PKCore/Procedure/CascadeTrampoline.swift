/// Runs work that can cascade through nested procedures (a group finishing because its last child finished,
/// which finishes its own parent; a group cancelling its children, which cancel theirs) inline, but never more
/// than ``maximumDepth`` levels deep on one thread: deeper work waits in a list and the outermost level runs it
/// once it unwinds, in order. So a cascade through 100,000 nested groups takes bounded stack, and the usual
/// shallow case runs exactly as if called directly, before `run` returns.
///
/// The list lives on the outermost caller's stack; a ``ThreadLocalPointer`` points at it.
enum CascadeTrampoline {

    /// How many levels run inline on one thread before work is deferred to the outermost level.
    static let maximumDepth = 32

    private struct Frame {
        var depth = 0
        var deferred: [() -> Void] = []
    }

    /// The outermost frame of this thread.
    private static let outermost = ThreadLocalPointer<Frame>()

    /// Runs `work` now, or, when this thread is already ``maximumDepth`` levels into such work, once the
    /// outermost level has unwound (still on this thread, before the outermost `run` returns).
    static func run(_ work: @escaping () -> Void) {
        if let frame = outermost.current {
            guard frame.pointee.depth < maximumDepth else {
                frame.pointee.deferred.append(work)
                return
            }
            frame.pointee.depth += 1
            work()
            frame.pointee.depth -= 1
            return
        }
        var frame = Frame(depth: 1)
        withUnsafeMutablePointer(to: &frame) { pointer in
            outermost.withCurrent(pointer, restoring: nil) { runOutermost(pointer, work) }
        }
    }

    /// The outermost level: runs `work`, then everything deferred by deeper levels, in order.
    private static func runOutermost(_ pointer: UnsafeMutablePointer<Frame>, _ work: () -> Void) {
        work()
        var next = 0
        while next < pointer.pointee.deferred.count {
            let deferred = pointer.pointee.deferred[next]
            next += 1
            deferred()
            if next == pointer.pointee.deferred.count {
                pointer.pointee.deferred.removeAll(keepingCapacity: true)
                next = 0
            }
        }
    }
}
