import Foundation
import Testing

@testable import PKCore

/// `Duration.clamping(seconds:)`: what every time parameter that may be NaN, infinite or huge goes through.
struct DurationClampingTests {

    @Test(arguments: [
        (-Double.infinity, Duration.zero), (-1, .zero), (0, .zero), (.nan, .zero), (1e-9, .nanoseconds(1)),
        (1.5, .milliseconds(1_500)), (1e19, Duration.longestClamped), (.infinity, Duration.longestClamped),
    ])
    func secondsAreClampedIntoARangeThatCannotTrap(seconds: Double, expected: Duration) {
        #expect(Duration.clamping(seconds: seconds) == expected)
    }

    @Test func theLongestClampedDurationCanBeAddedToDatesAndInstants() {
        let date = Date().addingTimeInterval(Double(Duration.longestClamped.components.seconds))
        #expect(date > Date())
        let instant = ContinuousClock().now.advanced(by: .longestClamped)
        #expect(instant > ContinuousClock().now)
    }
}
