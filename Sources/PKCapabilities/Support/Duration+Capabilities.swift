extension Duration {
    /// The duration in seconds.
    var inSeconds: Double {
        timeInterval
    }

    /// `"90 s"`, or `"1.250 s"` with milliseconds when there is a fraction: for descriptions and errors.
    var readable: String {
        // Beyond `Int64.max` seconds, `components` traps: such a duration is described in whole seconds.
        guard self < .seconds(Int64.max), self > .seconds(Int64.min) else { return "\(timeInterval) s" }
        let (seconds, attoseconds) = components
        let milliseconds = attoseconds / 1_000_000_000_000_000
        guard milliseconds != 0 else { return "\(seconds) s" }
        let fraction = String(abs(milliseconds))
        let sign = seconds == 0 && attoseconds < 0 ? "-" : ""
        return "\(sign)\(seconds).\(String(repeating: "0", count: 3 - fraction.count))\(fraction) s"
    }
}
