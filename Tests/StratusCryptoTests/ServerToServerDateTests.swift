import Foundation
import StratusCrypto
import Testing

@Suite struct ServerToServerDateTests {
    /// Dates format as UTC ISO 8601 without fractional seconds.
    @Test(arguments: [
        (1_453_760_143.0, "2016-01-25T22:15:43Z"),
        (1_453_760_143.999, "2016-01-25T22:15:43Z"),
        (0.0, "1970-01-01T00:00:00Z"),
        (-1.0, "1969-12-31T23:59:59Z"),
        (951_782_400.0, "2000-02-29T00:00:00Z"),
        (4_102_444_799.0, "2099-12-31T23:59:59Z"),
        (253_402_300_799.0, "9999-12-31T23:59:59Z"),
    ])
    func formatsUTCWithoutFraction(seconds: Double, expected: String) {
        let text = ServerToServerSignature.dateString(from: Date(timeIntervalSince1970: seconds))
        #expect(text == expected)
        #expect(ServerToServerSignature.date(from: text) == Date(timeIntervalSince1970: seconds.rounded(.down)))
    }

    /// Formatting agrees with Foundation's ISO 8601 formatter across many dates.
    @Test func formattingAgreesWithFoundation() {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        var seconds = -2_208_988_800.0  // 1900
        while seconds < 4_102_444_800 {  // 2100
            let date = Date(timeIntervalSince1970: seconds)
            #expect(ServerToServerSignature.dateString(from: date) == formatter.string(from: date))
            seconds += 7_777_777.0
        }
    }

    /// Anything but exactly `YYYY-MM-DDTHH:MM:SSZ` with a real date is rejected.
    @Test(arguments: [
        "", "2016-01-25T22:15:43", "2016-01-25T22:15:43.000Z", "2016-01-25T22:15:43+00:00",
        "2016-01-25 22:15:43Z", "2016-1-25T22:15:43Z", "2016-13-25T22:15:43Z", "2016-02-30T22:15:43Z",
        "2015-02-29T00:00:00Z", "2016-01-25T24:00:00Z", "2016-01-25T22:60:43Z", "2016-01-25T22:15:60Z",
        "2016-01-25t22:15:43z", "+016-01-25T22:15:43Z", "２016-01-25T22:15:43Z",
    ])
    func rejectsMalformedDates(text: String) {
        #expect(ServerToServerSignature.date(from: text) == nil)
        #expect(!ServerToServerSignature.isDateAcceptable(text, now: Date(timeIntervalSince1970: 1_453_760_143)))
    }

    /// The date window is |now − date| ≤ 10 minutes, in both directions.
    @Test func dateWindowIsTenMinutesEitherWay() {
        let signed = "2016-01-25T22:15:43Z"
        let base = Date(timeIntervalSince1970: 1_453_760_143)
        #expect(ServerToServerSignature.isDateAcceptable(signed, now: base))
        #expect(ServerToServerSignature.isDateAcceptable(signed, now: base + 600))
        #expect(ServerToServerSignature.isDateAcceptable(signed, now: base - 600))
        #expect(!ServerToServerSignature.isDateAcceptable(signed, now: base + 601))
        #expect(!ServerToServerSignature.isDateAcceptable(signed, now: base - 601))
        #expect(ServerToServerSignature.isDateAcceptable(signed, now: base + 30, tolerance: 30))
        #expect(!ServerToServerSignature.isDateAcceptable(signed, now: base + 31, tolerance: 30))
    }
}
