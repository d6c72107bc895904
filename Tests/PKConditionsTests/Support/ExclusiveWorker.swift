import Foundation
import PKConditions
import PKTesting

/// A procedure that records itself in a ``ConcurrencyTracker`` while it runs, holding for `hold` seconds (or
/// not at all), and finishes after leaving the tracker.
final class ExclusiveWorker: Procedure, @unchecked Sendable {
    // @unchecked Sendable: `tracker` and `hold` are immutable; the tracker is thread-safe.

    private let tracker: ConcurrencyTracker
    private let hold: TimeInterval

    init(name: String = "ExclusiveWorker", category: String, tracker: ConcurrencyTracker, hold: TimeInterval = 0) {
        self.tracker = tracker
        self.hold = hold
        super.init()
        self.name = name
        add(condition: MutuallyExclusive<ExclusiveWorker>(category: category))
    }

    override func execute() {
        tracker.enter()
        guard hold > 0 else {
            tracker.leave()
            finish()
            return
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + hold) { [self] in
            tracker.leave()
            finish()
        }
    }
}
