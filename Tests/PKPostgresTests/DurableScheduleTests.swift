#if Postgres
    import Foundation
    import PKPostgres
    import Testing

    /// Schedules alone (no database): intervals counted from the epoch, and cron expressions in time zones,
    /// across daylight-saving changes, with their errors.
    struct DurableScheduleTests {

        static let utc = TimeZone(identifier: "UTC")!
        static let paris = TimeZone(identifier: "Europe/Paris")!

        static func date(_ text: String, _ zone: TimeZone = utc) -> Date {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            let parts = text.split(whereSeparator: { "-: ".contains($0) }).compactMap { Int($0) }
            return calendar.date(
                from: DateComponents(
                    year: parts[0], month: parts[1], day: parts[2], hour: parts[3], minute: parts[4]))!
        }

        @Test func anIntervalRunsOnItsMultiplesOfTheEpoch() throws {
            let hourly = try DurableSchedule.every(.seconds(3_600))
            #expect(hourly.next(after: Self.date("2026-11-29 10:15")) == Self.date("2026-11-29 11:00"))
            #expect(hourly.next(after: Self.date("2026-11-29 11:00")) == Self.date("2026-11-29 12:00"))
            #expect(throws: DurableError.self) { try DurableSchedule.every(.milliseconds(1)) }
            #expect(throws: DurableError.self) { try DurableSchedule.every(.seconds(400 * 86_400)) }
        }

        @Test func cronFieldsTakeStepsRangesListsAndNames() throws {
            let quarter = try DurableSchedule.cron("*/15 * * * *")
            #expect(quarter.next(after: Self.date("2026-11-29 10:15")) == Self.date("2026-11-29 10:30"))
            #expect(quarter.next(after: Self.date("2026-11-29 10:59")) == Self.date("2026-11-29 11:00"))
            // Sunday 29 November 2026: the next weekday at 9 is Monday.
            let weekdays = try DurableSchedule.cron("0 9 * * MON-FRI")
            #expect(weekdays.next(after: Self.date("2026-11-29 08:00")) == Self.date("2026-11-30 09:00"))
            let listed = try DurableSchedule.cron("5,35 1-2 1 JAN,jul *")
            #expect(listed.next(after: Self.date("2026-11-29 00:00")) == Self.date("2027-01-01 01:05"))
            #expect(listed.next(after: Self.date("2027-01-01 01:05")) == Self.date("2027-01-01 01:35"))
            #expect(listed.next(after: Self.date("2027-01-01 02:35")) == Self.date("2027-07-01 01:05"))
            // Sunday is 0 and 7.
            let sunday = try DurableSchedule.cron("0 0 * * 7")
            #expect(sunday.next(after: Self.date("2026-11-29 00:00")) == Self.date("2026-12-06 00:00"))
        }

        @Test func whenBothDayFieldsAreRestrictedEitherMatches() throws {
            // The 1st of the month, or a Friday: Friday 4 December 2026 comes first.
            let either = try DurableSchedule.cron("0 12 1 * FRI")
            #expect(either.next(after: Self.date("2026-12-01 13:00")) == Self.date("2026-12-04 12:00"))
            #expect(either.next(after: Self.date("2026-11-29 00:00")) == Self.date("2026-12-01 12:00"))
        }

        @Test func cronReadsItsTimeZoneAcrossDaylightSavingChanges() throws {
            let morning = try DurableSchedule.cron("0 9 * * *", timeZone: Self.paris)
            // 09:00 in Paris is 08:00 UTC in winter, 07:00 UTC in summer.
            #expect(morning.next(after: Self.date("2026-11-29 10:00")) == Self.date("2026-11-30 08:00"))
            #expect(morning.next(after: Self.date("2026-07-01 10:00")) == Self.date("2026-07-02 07:00"))
            // 02:30 does not exist in Paris on 29 March 2026 (02:00 → 03:00): that day is skipped.
            let skipped = try DurableSchedule.cron("30 2 * * *", timeZone: Self.paris)
            #expect(
                skipped.next(after: Self.date("2026-03-28 03:00", Self.paris))
                    == Self.date("2026-03-30 02:30", Self.paris))
            // 02:30 happens twice on 25 October 2026 (03:00 → 02:00): it runs once, then the next day.
            let first = try #require(skipped.next(after: Self.date("2026-10-25 00:00", Self.paris)))
            #expect(skipped.next(after: first) == Self.date("2026-10-26 02:30", Self.paris))
        }

        @Test(arguments: [
            "", "* * * *", "* * * * * *", "60 * * * *", "* 24 * * *", "* * 0 * *", "* * * 13 *", "* * * * 8",
            "*/0 * * * *", "5-1 * * * *", "a * * * *", "* * * FOO *", "1,,2 * * * *",
        ])
        func badCronExpressionsAreTypedErrors(expression: String) {
            #expect(throws: DurableError.self) { try DurableSchedule.cron(expression) }
        }

        @Test func anExpressionWithNoDayHasNoNextPeriod() throws {
            #expect(try DurableSchedule.cron("0 0 31 2 *").next(after: Self.date("2026-01-01 00:00")) == nil)
        }
    }
#endif
