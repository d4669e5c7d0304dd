public import Foundation

/// A value bound to a statement parameter, sent in PostgreSQL's text format or, where a conformer
/// offers one (``PostgresArray``), its binary format.
///
/// Conformers render themselves as the text PostgreSQL parses for the parameter's type
/// (`nil` for SQL `NULL`): integers in decimal, `Bool` as `t`/`f`, bytes as `\x` hex.
public protocol PostgresBindable {
    /// The text form, or `nil` for `NULL`.
    var postgresText: String? { get }
    /// The binary form (the type's `…_send` format), sent instead of ``postgresText`` when not `nil`;
    /// the statement must then name the parameter's type exactly (`$1::bigint[]`).
    var postgresBinary: [UInt8]? { get }
}

extension PostgresBindable {
    /// `nil`: the value goes as text.
    public var postgresBinary: [UInt8]? { nil }
}

/// A value read from a result column in PostgreSQL's text format.
public protocol PostgresDecodable {
    /// Parses the column's text; `nil` when it does not parse as this type.
    init?(postgresText: String)
}

extension String: PostgresBindable, PostgresDecodable {
    /// The string itself.
    public var postgresText: String? { self }
    /// The column's text.
    public init?(postgresText: String) { self = postgresText }
}

extension Int64: PostgresBindable, PostgresDecodable {
    /// Decimal digits.
    public var postgresText: String? { String(self) }
    /// Parses decimal digits.
    public init?(postgresText: String) { self.init(postgresText, radix: 10) }
}

extension Int: PostgresBindable, PostgresDecodable {
    /// Decimal digits.
    public var postgresText: String? { String(self) }
    /// Parses decimal digits.
    public init?(postgresText: String) { self.init(postgresText, radix: 10) }
}

extension Double: PostgresBindable, PostgresDecodable {
    /// The shortest text that reads back as the same value.
    public var postgresText: String? {
        if isNaN { return "NaN" }
        if isInfinite { return self < 0 ? "-Infinity" : "Infinity" }
        return "\(self)"
    }
    /// Parses PostgreSQL's float text.
    public init?(postgresText: String) {
        switch postgresText {
        case "NaN": self = .nan
        case "Infinity": self = .infinity
        case "-Infinity": self = -.infinity
        default: self.init(postgresText)
        }
    }
}

extension Bool: PostgresBindable, PostgresDecodable {
    /// `t` or `f`.
    public var postgresText: String? { self ? "t" : "f" }
    /// Parses `t`/`f` (and `true`/`false`).
    public init?(postgresText: String) {
        switch postgresText {
        case "t", "true": self = true
        case "f", "false": self = false
        default: return nil
        }
    }
}

extension Data: PostgresBindable, PostgresDecodable {
    /// `bytea` hex text, `\x…`.
    public var postgresText: String? { PostgresHex.encode(self) }
    /// Parses `bytea` hex text.
    public init?(postgresText: String) {
        guard let bytes = PostgresHex.decode(postgresText) else { return nil }
        self = Data(bytes)
    }
}

extension Array: PostgresBindable where Element == UInt8 {
    /// `bytea` hex text, `\x…`.
    public var postgresText: String? { PostgresHex.encode(self) }
}

extension Array: PostgresDecodable where Element == UInt8 {
    /// Parses `bytea` hex text.
    public init?(postgresText: String) {
        guard let bytes = PostgresHex.decode(postgresText) else { return nil }
        self = bytes
    }
}

extension Optional: PostgresBindable where Wrapped: PostgresBindable {
    /// The wrapped value's text, or `nil` (SQL `NULL`).
    public var postgresText: String? { self?.postgresText }
}

/// `bytea` hex format.
enum PostgresHex {
    private static let digits = Array("0123456789abcdef".utf8)

    static func encode<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        var text: [UInt8] = [UInt8(ascii: "\\"), UInt8(ascii: "x")]
        text.reserveCapacity(2 + bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    static func decode(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 2, utf8[0] == UInt8(ascii: "\\"), utf8[1] == UInt8(ascii: "x"), utf8.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity((utf8.count - 2) / 2)
        var index = 2
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
