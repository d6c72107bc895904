#if Postgres
    import Foundation
    import PKCore

    /// When a periodic job runs (``DurablePeriodicJob``): every fixed interval, or on a cron expression in a time
    /// zone.
    public struct DurableSchedule: Sendable, Hashable, CustomStringConvertible {
        private enum Rule: Sendable, Hashable {
            case interval(TimeInterval)
            case cron(CronExpression, text: String)
        }

        private let rule: Rule

        /// Every `interval` (10 ms to 366 days), in periods counted from the Unix epoch: an hourly schedule runs on
        /// the hour (UTC), whichever worker is elected and whenever it started.
        ///
        /// - Throws: ``DurableError/invalidOption(_:)`` for an interval out of range.
        public static func every(_ interval: Duration) throws -> DurableSchedule {
            guard interval >= .milliseconds(10), interval <= .seconds(366 * 86_400) else {
                throw DurableError.invalidOption("a schedule's interval must be between 10 ms and 366 days")
            }
            return DurableSchedule(rule: .interval(interval.timeInterval))
        }

        /// On a cron expression in the five-field syntax (`minute hour day-of-month month day-of-week`, with `*`,
        /// numbers, ranges `a-b`, lists `a,b`, steps `*/n`, and English month and day names), read in `timeZone`
        /// (UTC by default). When both the day of the month and the day of the week are restricted, a day matching
        /// either runs; times a daylight-saving change skips do not run, and a time that occurs twice runs once.
        ///
        /// ```swift
        /// try DurableSchedule.cron("0 9 * * MON-FRI", timeZone: TimeZone(identifier: "Europe/Paris")!)
        /// ```
        ///
        /// - Throws: ``DurableError/invalidOption(_:)`` naming what is wrong with the expression.
        public static func cron(_ expression: String, timeZone: TimeZone = TimeZone(identifier: "UTC")!) throws
            -> DurableSchedule
        {
            do {
                return DurableSchedule(
                    rule: .cron(try CronExpression(expression, timeZone: timeZone), text: expression))
            } catch {
                throw DurableError.invalidOption(error.description)
            }
        }

        /// The first period after `date`, or `nil` when the schedule has none within five years.
        public func next(after date: Date) -> Date? {
            switch rule {
            case .interval(let seconds):
                let periods = (date.timeIntervalSince1970 / seconds).rounded(.down) + 1
                return Date(timeIntervalSince1970: periods * seconds)
            case .cron(let expression, _):
                return expression.next(after: date)
            }
        }

        /// The latest period at or before `date` after `last`, and how many periods fell in between (at most
        /// `limit` are counted; a long interval schedule is counted without walking it).
        func latestPeriod(after last: Date, upTo date: Date, limit: Int = 10_000) -> (period: Date, count: Int)? {
            switch rule {
            case .interval(let seconds):
                let first = (last.timeIntervalSince1970 / seconds).rounded(.down) + 1
                let latest = (date.timeIntervalSince1970 / seconds).rounded(.down)
                guard latest >= first else { return nil }
                return (Date(timeIntervalSince1970: latest * seconds), Int(min(latest - first + 1, Double(limit))))
            case .cron:
                var found: Date?
                var count = 0
                var cursor = last
                while count < limit, let next = next(after: cursor), next <= date {
                    found = next
                    count += 1
                    cursor = next
                }
                return found.map { ($0, count) }
            }
        }

        /// The shortest time between two periods, as far as checking for due periods goes: the interval, or a
        /// minute for a cron expression.
        var shortestPeriod: TimeInterval {
            switch rule {
            case .interval(let seconds): seconds
            case .cron: 60
            }
        }

        /// `every 60.0 s` or `cron "0 9 * * MON-FRI" in Europe/Paris`.
        public var description: String {
            switch rule {
            case .interval(let seconds): "every \(seconds) s"
            case .cron(let expression, let text): "cron \"\(text)\" in \(expression.timeZone.identifier)"
            }
        }
    }
#endif
