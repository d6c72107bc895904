extension Duration {
    /// The longest duration ``clamping(seconds:)`` gives: about 31.7 million years, far below `Duration`'s limit
    /// (about 1.7e20 seconds), so that adding it to a clock's instant or a `Date` cannot overflow either.
    package static let longestClamped = Duration.seconds(1e15)

    /// `seconds` as a duration, without trapping: zero for NaN and for negative values, ``longestClamped`` for values
    /// beyond it (infinity included). `Duration.seconds(_:)` traps on NaN, infinity and anything beyond its range.
    package static func clamping(seconds: Double) -> Duration {
        guard seconds > 0 else { return .zero }  // NaN and negatives
        return seconds < 1e15 ? .seconds(seconds) : longestClamped
    }
}
