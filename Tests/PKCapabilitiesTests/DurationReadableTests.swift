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

    /// Longer than `Int64.max` seconds (`Duration` holds up to about 1.7e20 s): `components` traps there, so such
    /// a duration reads in whole seconds instead, and an error quoting it is described without a trap.
    @Test(arguments: [Duration.seconds(1e19), .seconds(-1e19)])
    func aDurationBeyondInt64SecondsReadsWithoutATrap(duration: Duration) {
        #expect(duration.readable.hasSuffix(" s"))
        #expect(duration.inSeconds.isFinite)
        let error = CredentialError.expiresTooSoon(credential: "api", expiresIn: .zero, needed: duration)
        #expect(!error.description.isEmpty)
    }
}
