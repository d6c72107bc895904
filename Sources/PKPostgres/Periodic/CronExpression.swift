#if Postgres
    import Foundation

    /// A cron expression in the classic five-field syntax, `minute hour day-of-month month day-of-week`, read in a
    /// time zone: `*/15 * * * *`, `0 9 * * MON-FRI`, `30 2 1 * *`, `0 0 * * 0` (Sunday is 0 or 7).
    ///
    /// Each field takes `*`, a number, a range `a-b`, a list `a,b,c` and a step `*/n` or `a-b/n`; months and days of
    /// the week also take their English three-letter names. As in Vixie cron, when both the day of the month and the
    /// day of the week are restricted, a day matching either runs. Times a daylight-saving change skips do not run;
    /// a time that occurs twice runs once, the first time.
    struct CronExpression: Sendable, Hashable {
        let minutes: Set<Int>
        let hours: Set<Int>
        let daysOfMonth: Set<Int>
        let months: Set<Int>
        /// 0 (Sunday) to 6.
        let daysOfWeek: Set<Int>
        let dayOfMonthRestricted: Bool
        let dayOfWeekRestricted: Bool
        let timeZone: TimeZone

        struct ParseError: Error, CustomStringConvertible, Hashable {
            let description: String
        }

        private static let monthNames = [
            "JAN": 1, "FEB": 2, "MAR": 3, "APR": 4, "MAY": 5, "JUN": 6, "JUL": 7, "AUG": 8, "SEP": 9, "OCT": 10,
            "NOV": 11, "DEC": 12,
        ]
        private static let dayNames = ["SUN": 0, "MON": 1, "TUE": 2, "WED": 3, "THU": 4, "FRI": 5, "SAT": 6]

        init(_ text: String, timeZone: TimeZone) throws(ParseError) {
            let fields = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard fields.count == 5 else {
                throw ParseError(description: "a cron expression has 5 fields, \"\(text)\" has \(fields.count)")
            }
            minutes = try Self.field(fields[0], name: "minute", 0...59, names: [:])
            hours = try Self.field(fields[1], name: "hour", 0...23, names: [:])
            daysOfMonth = try Self.field(fields[2], name: "day of the month", 1...31, names: [:])
            months = try Self.field(fields[3], name: "month", 1...12, names: Self.monthNames)
            // 7 is Sunday too.
            daysOfWeek = Set(
                try Self.field(fields[4], name: "day of the week", 0...7, names: Self.dayNames).map { $0 % 7 })
            dayOfMonthRestricted = fields[2] != "*"
            dayOfWeekRestricted = fields[4] != "*"
            self.timeZone = timeZone
        }

        /// The values a field allows.
        private static func field(
            _ text: String, name: String, _ range: ClosedRange<Int>, names: [String: Int]
        ) throws(ParseError) -> Set<Int> {
            var values = Set<Int>()
            for part in text.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
                let pieces = part.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
                guard pieces.count <= 2, let base = pieces.first, !base.isEmpty else {
                    throw ParseError(description: "the \(name) field \"\(text)\" is not valid")
                }
                var step = 1
                if pieces.count == 2 {
                    guard let number = Int(pieces[1]), number >= 1, number <= range.upperBound + 1 else {
                        throw ParseError(description: "the step \"\(pieces[1])\" of the \(name) field is not valid")
                    }
                    step = number
                }
                let bounds: ClosedRange<Int>
                if base == "*" {
                    bounds = range
                } else if let dash = base.firstIndex(of: "-") {
                    let low = try value(String(base[..<dash]), name: name, range, names: names)
                    let high = try value(String(base[base.index(after: dash)...]), name: name, range, names: names)
                    guard low <= high else {
                        throw ParseError(description: "the \(name) range \"\(base)\" is reversed")
                    }
                    bounds = low...high
                } else {
                    let single = try value(base, name: name, range, names: names)
                    // `a/n` runs from a to the end of the range, as Vixie cron reads it.
                    bounds = pieces.count == 2 ? single...range.upperBound : single...single
                }
                values.formUnion(stride(from: bounds.lowerBound, through: bounds.upperBound, by: step))
            }
            return values
        }

        private static func value(
            _ text: String, name: String, _ range: ClosedRange<Int>, names: [String: Int]
        ) throws(ParseError) -> Int {
            if let number = names[text.uppercased()] { return number }
            guard let number = Int(text), range.contains(number) else {
                throw ParseError(
                    description: "\"\(text)\" is not a \(name) (\(range.lowerBound) to \(range.upperBound))")
            }
            return number
        }

        /// The first time after `date` that the expression matches, within the next five years; `nil` when there
        /// is none (`0 0 31 2 *`, the 31st of February).
        func next(after date: Date) -> Date? {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = timeZone
            // The next whole minute after `date`.
            guard
                let start = calendar.date(
                    byAdding: .minute, value: 1,
                    to: calendar.dateInterval(of: .minute, for: date)?.start ?? date)
            else { return nil }
            var day = calendar.startOfDay(for: start)
            let sortedHours = hours.sorted()
            let sortedMinutes = minutes.sorted()
            for _ in 0..<(366 * 5) {
                let parts = calendar.dateComponents([.year, .month, .day, .weekday], from: day)
                if let year = parts.year, let month = parts.month, let dayOfMonth = parts.day,
                    let weekday = parts.weekday, matchesDay(month: month, day: dayOfMonth, weekday: weekday - 1)
                {
                    for hour in sortedHours {
                        for minute in sortedMinutes {
                            let wanted = DateComponents(
                                year: year, month: month, day: dayOfMonth, hour: hour, minute: minute)
                            guard let candidate = calendar.date(from: wanted), candidate >= start else { continue }
                            // A time the clocks skip (a daylight-saving change) maps to another: not run.
                            let back = calendar.dateComponents([.day, .hour, .minute], from: candidate)
                            guard back.day == dayOfMonth, back.hour == hour, back.minute == minute else { continue }
                            return candidate
                        }
                    }
                }
                guard let following = calendar.date(byAdding: .day, value: 1, to: day) else { return nil }
                day = calendar.startOfDay(for: following)
            }
            return nil
        }

        private func matchesDay(month: Int, day: Int, weekday: Int) -> Bool {
            guard months.contains(month) else { return false }
            switch (dayOfMonthRestricted, dayOfWeekRestricted) {
            case (true, true): return daysOfMonth.contains(day) || daysOfWeek.contains(weekday)
            case (true, false): return daysOfMonth.contains(day)
            case (false, true): return daysOfWeek.contains(weekday)
            case (false, false): return true
            }
        }
    }
#endif
