import Foundation
import Testing

@testable import PKCore

/// `Duration(timeInterval:)`: what every time parameter that may be NaN, infinite or huge goes through.
struct DurationClampingTests {

    @Test(arguments: [
        (-Double.infinity, Duration.seconds(-1e12)), (-1, .seconds(-1)), (0, .zero), (.nan, .zero),
        (1e-9, .nanoseconds(1)), (1.5, .milliseconds(1_500)), (1e19, .seconds(1e12)), (.infinity, .seconds(1e12)),
    ])
    func secondsAreClampedIntoARangeThatCannotTrap(seconds: Double, expected: Duration) {
        #expect(Duration(timeInterval: seconds) == expected)
    }

    @Test func theLongestDurationCanBeAddedToDatesAndInstants() {
        let longest = Duration(timeInterval: .infinity)
        let date = Date().addingTimeInterval(Double(longest.components.seconds))
        #expect(date > Date())
        let instant = ContinuousClock().now.advanced(by: longest)
        #expect(instant > ContinuousClock().now)
    }
}
