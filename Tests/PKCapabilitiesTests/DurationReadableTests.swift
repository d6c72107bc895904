import Testing

@testable import PKCapabilities

/// How durations read in statuses and errors.
struct DurationReadableTests {

    @Test(arguments: [
        (Duration.seconds(90), "90 s"),
        (.zero, "0 s"),
        (.milliseconds(1_250), "1.250 s"),
        (.milliseconds(5), "0.005 s"),
        (.milliseconds(-500), "-0.500 s"),
        (.seconds(3_599), "3599 s"),
    ])
    func durationsReadAsSecondsWithMillisecondsOnlyWhenThereIsAFraction(duration: Duration, text: String) {
        #expect(duration.readable == text)
    }
}
