public import Foundation

extension ServerToServerSignature {
    /// How far a request's date may be from the server's clock: 10 minutes.
    public static let defaultDateTolerance: TimeInterval = 600

    /// Formats a date as UTC ISO 8601 without fractional seconds, such as `2016-01-25T22:15:43Z`.
    ///
    /// Fractions of a second are dropped (rounded down).
    ///
    /// ```swift
    /// ServerToServerSignature.dateString(from: Date(timeIntervalSince1970: 1_453_760_143))
    /// // "2016-01-25T22:15:43Z"
    /// ```
    ///
    /// - Parameter date: The moment to format; its year must be between 0 and 9999.
    /// - Returns: The 20-character string.
    public static func dateString(from date: Date) -> String {
        let interval = date.timeIntervalSince1970.rounded(.down)
        precondition(
            interval.isFinite && abs(interval) < 300_000_000_000,
            "date \(interval)s from 1970 cannot be written as a four-digit ISO 8601 year"
        )
        let seconds = Int64(interval)
        let (days, secondOfDay) = floorDivide(seconds, by: 86_400)
        let (year, month, day) = civilDate(fromDays: days)
        precondition((0...9999).contains(year), "year \(year) cannot be written as a four-digit ISO 8601 year")
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
            + pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay % 3600 / 60, 2) + ":" + pad(secondOfDay % 60, 2) + "Z"
    }

    /// Parses a UTC ISO 8601 date without fractional seconds, such as `2016-01-25T22:15:43Z`.
    ///
    /// Strict: exactly `YYYY-MM-DDTHH:MM:SSZ`, a real calendar date, no offset, no fraction.
    ///
    /// - Parameter string: The header value.
    /// - Returns: The date, or `nil` if the string is not in that form.
    public static func date(from string: String) -> Date? {
        let bytes = Array(string.utf8)
        guard bytes.count == 20,
            bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"), bytes[19] == UInt8(ascii: "Z"),
            let year = number(bytes[0..<4]), let month = number(bytes[5..<7]), let day = number(bytes[8..<10]),
            let hour = number(bytes[11..<13]), let minute = number(bytes[14..<16]), let second = number(bytes[17..<19]),
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
            hour < 24, minute < 60, second < 60
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// Checks that a request's date header is well formed and within `tolerance` of `now`.
    ///
    /// A pure function: the server passes its own clock's reading.
    ///
    /// - Parameters:
    ///   - dateString: The `X-Apple-CloudKit-Request-ISO8601Date` header value.
    ///   - now: The server's current time.
    ///   - tolerance: The largest accepted difference, in either direction; 10 minutes by default.
    /// - Returns: `true` if the date parses and `|now − date| ≤ tolerance`.
    public static func isDateAcceptable(
        _ dateString: String,
        now: Date,
        tolerance: TimeInterval = defaultDateTolerance
    ) -> Bool {
        guard let date = date(from: dateString) else { return false }
        return abs(now.timeIntervalSince(date)) <= tolerance
    }

    // MARK: Calendar arithmetic (proleptic Gregorian, UTC)

    private static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for digit in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else { return nil }
            value = value * 10 + Int(digit - UInt8(ascii: "0"))
        }
        return value
    }

    private static func pad(_ value: some BinaryInteger, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    private static func floorDivide(_ value: Int64, by divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let remainder = ((value % divisor) + divisor) % divisor
        return ((value - remainder) / divisor, remainder)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 for a civil date (Howard Hinnant's `days_from_civil`).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = Int64(month > 2 ? month - 3 : month + 9)
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date for days since 1970-01-01 (Howard Hinnant's `civil_from_days`).
    private static func civilDate(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
