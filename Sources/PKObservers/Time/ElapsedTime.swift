import Dispatch
import Foundation
import PKCore

/// Time elapsed since an origin, read from the process's monotonic clock or from an injected ``ProcedureClock``.
///
/// The profiler and the trace recorder both measure "time since I was created". By default they read the monotonic
/// clock (`DispatchTime`, which never goes backwards, unlike the wall clock), and keep the wall-clock instant of
/// their creation to label the result. A test passes a `ProcedureClock` (PKTesting's `ManualClock`) instead and
/// gets exact, repeatable times; a clock that moves backwards reads as zero elapsed time, never as negative.
struct ElapsedTime: Sendable {
    private let clock: (any ProcedureClock)?
    /// `clock == nil`, kept apart so the monotonic path does not copy the optional existential out.
    // PERF(W13): the trace recorder reads the time three times per procedure.
    private let monotonic: Bool
    /// The monotonic reading at the origin (unused with a clock).
    private let originUptime: UInt64
    /// The wall-clock instant of the origin: `Date()` then, or the injected clock's `now` then.
    let originDate: Date

    /// Starts measuring now, from `clock` or (when `nil`) from the monotonic clock.
    init(clock: (any ProcedureClock)?) {
        self.clock = clock
        monotonic = clock == nil
        if let clock {
            originUptime = 0
            originDate = clock.now
        } else {
            originUptime = DispatchTime.now().uptimeNanoseconds
            originDate = Date()
        }
    }

    /// Nanoseconds since the origin (never negative).
    func nanoseconds() -> UInt64 {
        if monotonic {
            let now = DispatchTime.now().uptimeNanoseconds
            return now >= originUptime ? now - originUptime : 0
        }
        guard let clock else { return 0 }
        let seconds = clock.now.timeIntervalSince(originDate)
        guard seconds > 0 else { return 0 }
        return UInt64(min(seconds * 1e9, Double(UInt64.max / 2)).rounded())
    }

    /// Seconds since the origin (never negative).
    func seconds() -> TimeInterval {
        guard let clock else { return TimeInterval(nanoseconds()) / 1e9 }
        return max(0, clock.now.timeIntervalSince(originDate))
    }
}
