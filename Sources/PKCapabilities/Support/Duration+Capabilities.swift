extension Duration {
    /// The duration in seconds.
    var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// `"90 s"`, or `"1.250 s"` with milliseconds when there is a fraction: for descriptions and errors.
    var readable: String {
        let (seconds, attoseconds) = components
        let milliseconds = attoseconds / 1_000_000_000_000_000
        guard milliseconds != 0 else { return "\(seconds) s" }
        let fraction = String(abs(milliseconds))
        let sign = seconds == 0 && attoseconds < 0 ? "-" : ""
        return "\(sign)\(seconds).\(String(repeating: "0", count: 3 - fraction.count))\(fraction) s"
    }
}
