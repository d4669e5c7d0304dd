public import Foundation

/// A point in time as whole milliseconds since 1970-01-01 UTC, the CloudKit TIMESTAMP.
///
/// Encodes as a JSON integer. Decoding accepts integers and whole-number doubles and rejects a
/// fractional value with ``WireError/Code/fractionalTimestamp`` (CloudKit answers `BAD_REQUEST`).
///
/// ```swift
/// let due = Timestamp(millisecondsSince1970: 1_747_999_812_000)
/// due.date   // 2025-05-23 11:30:12 +0000
/// ```
public struct Timestamp: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01 00:00:00 UTC.
    public var millisecondsSince1970: Int64

    /// Creates a timestamp from milliseconds since 1970.
    ///
    /// - Parameter millisecondsSince1970: Milliseconds since the Unix epoch.
    public init(millisecondsSince1970: Int64) {
        self.millisecondsSince1970 = millisecondsSince1970
    }

    /// Creates a timestamp from a date, rounded to the nearest millisecond.
    ///
    /// - Parameter date: The date.
    public init(_ date: Date) {
        self.millisecondsSince1970 = Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// The timestamp as a `Date`.
    public var date: Date {
        Date(timeIntervalSince1970: Double(millisecondsSince1970) / 1000)
    }

    /// The number of milliseconds.
    public var description: String { String(millisecondsSince1970) }

    /// Orders timestamps chronologically.
    ///
    /// - Parameters:
    ///   - lhs: A timestamp.
    ///   - rhs: Another timestamp.
    /// - Returns: Whether `lhs` is earlier.
    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.millisecondsSince1970 < rhs.millisecondsSince1970
    }

    /// Decodes whole milliseconds.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: ``WireError`` with ``WireError/Code/fractionalTimestamp`` for a fractional number.
    public init(from decoder: any Decoder) throws {
        let json = try JSONValue(from: decoder)
        self = try Timestamp(json: json, allowStrings: false, codingPath: decoder.codingPath)
    }

    /// Encodes the milliseconds as a JSON integer.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: Whatever the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(millisecondsSince1970)
    }

    /// Converts a JSON number (or, when allowed, a numeric string) into whole milliseconds.
    init(json: JSONValue, allowStrings: Bool, codingPath: [any CodingKey]) throws(WireError) {
        switch json {
        case .integer(let milliseconds):
            self.init(millisecondsSince1970: milliseconds)
        case .double(let double):
            try self.init(double: double, text: double.description, codingPath: codingPath)
        case .string(let text) where allowStrings:
            if let milliseconds = Int64(text) {
                self.init(millisecondsSince1970: milliseconds)
            } else if let double = Double(text) {
                try self.init(double: double, text: text, codingPath: codingPath)
            } else {
                throw WireError(
                    code: .fieldTypeMismatch, message: "expected TIMESTAMP but the string \"\(text)\" is not a number",
                    codingPath: codingPath)
            }
        default:
            throw WireError(
                code: .fieldTypeMismatch, message: "expected TIMESTAMP milliseconds but the value is \(json.kindDescription)",
                codingPath: codingPath)
        }
    }

    private init(double: Double, text: String, codingPath: [any CodingKey]) throws(WireError) {
        guard double.rounded() == double else {
            throw WireError(
                code: .fractionalTimestamp,
                message: "TIMESTAMP must be a whole number of milliseconds, found \(text)", codingPath: codingPath)
        }
        guard let milliseconds = Int64(exactly: double) else {
            throw WireError(code: .invalidValue, message: "TIMESTAMP \(text) is out of range", codingPath: codingPath)
        }
        self.init(millisecondsSince1970: milliseconds)
    }
}
