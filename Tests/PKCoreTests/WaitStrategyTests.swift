import Foundation
import PKCore
import PKTesting
import Testing

/// A deterministic generator (SplitMix64) for reproducible random waits.
struct SeededGenerator: RandomNumberGenerator, Sendable {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

struct WaitStrategyTests {

    static let sequences: [(WaitStrategy, [TimeInterval])] = [
        (.immediate, [0, 0, 0, 0]),
        (.constant(1.5), [1.5, 1.5, 1.5, 1.5]),
        (.incrementing(initial: 0, increment: 3), [0, 3, 6, 9, 12]),
        (.incrementing(initial: 5, increment: -2), [5, 3, 1, 0, 0]),
        (.fibonacci(period: 1, maximum: 30), [0, 1, 1, 2, 3, 5, 8, 13, 21, 30, 30]),
        (.fibonacci(period: 0.5, maximum: 4), [0, 0.5, 0.5, 1, 1.5, 2.5, 4, 4]),
        // BEHAVIOUR §13.52
        (.exponential(power: 2, period: 1, maximum: 20), [1, 2, 4, 8, 16, 20, 20]),
        (.exponential(power: 3, period: 0.1, maximum: 5), [0.1, 0.3, 0.9, 2.7, 5, 5]),
        (.exponential(power: 2, period: 1, maximum: -1), [0, 0, 0]),
        (.random(minimum: 2, maximum: 2), [2, 2, 2]),
    ]

    @Test(arguments: sequences)
    func strategyYieldsItsSequence(strategy: WaitStrategy, expected: [TimeInterval]) {
        let values = Array(strategy.prefix(expected.count))
        #expect(values.count == expected.count)
        for (value, want) in zip(values, expected) {
            #expect(abs(value - want) < 1e-9, "\(strategy): got \(values), expected \(expected)")
        }
    }

    @Test func everyStrategyIsEndless() {
        for (strategy, _) in Self.sequences {
            var iterator = strategy.makeIterator()
            for _ in 0..<1_000 { #expect(iterator.next() != nil) }
        }
    }

    @Test func randomWaitsStayWithinTheirBounds() {
        let values = Array(WaitStrategy.random(minimum: 1, maximum: 3).prefix(1_000))
        #expect(values.allSatisfy { (1...3).contains($0) })
        #expect(Set(values).count > 1)
    }

    @Test func randomWaitsAcceptBoundsInEitherOrder() {
        let values = Array(WaitStrategy.random(minimum: 3, maximum: 1).prefix(200))
        #expect(values.allSatisfy { (1...3).contains($0) })
    }

    @Test func randomWaitsRepeatWithTheSameGeneratorSeed() {
        let strategy = WaitStrategy.random(minimum: 0, maximum: 10)
        var first = strategy.makeIterator(using: SeededGenerator(state: 42))
        var second = strategy.makeIterator(using: SeededGenerator(state: 42))
        var other = strategy.makeIterator(using: SeededGenerator(state: 7))
        let a = (0..<20).compactMap { _ in first.next() }
        let b = (0..<20).compactMap { _ in second.next() }
        let c = (0..<20).compactMap { _ in other.next() }
        #expect(a == b)
        #expect(a != c)
        #expect(a.allSatisfy { (0...10).contains($0) })
    }

    @Test func delayIteratorWrapsEachWaitInDelayBy() {
        var delays = WaitStrategy.exponential(power: 2, period: 1, maximum: 20).makeDelayIterator()
        let values = (0..<4).compactMap { _ in delays.next() }
        #expect(values == [.by(1), .by(2), .by(4), .by(8)])
    }
}
