/// The SQL dialect a statement is rendered for.
public enum SQLDialect: Sendable, Hashable {
    /// SQLite: parameters are `?`.
    case sqlite
    /// PostgreSQL: parameters are `$1`, `$2`, ….
    case postgres
}

/// One SQL statement (or fragment) whose interpolated values are bound parameters, never text.
///
/// Build it with string interpolation: every interpolated value becomes a parameter, rendered
/// `?` for SQLite and `$n` for PostgreSQL (``rendered(for:)``), so user data can never change
/// the statement. Fragments nest (`\(fragment)` splices an ``SQL`` with its own parameters), and
/// an identifier only goes in through the explicit, validated `\(identifier:)`:
///
/// ```swift
/// let (email, since) = ("zoë@example.com", Int64(1_700_000_000))
/// let columns: SQL = "record_name, email"
/// let query: SQL = "SELECT \(columns) FROM users WHERE email = \(email) AND created_at > \(since)"
/// query.rendered(for: .postgres).text  // SELECT record_name, email FROM users WHERE email = $1 AND created_at > $2
/// ```
///
/// A value that is not ``SQLBindable`` does not compile; there is no way to splice raw text
/// but a literal in the source (a `String` variable interpolated is bound, not spliced).
public struct SQL: Sendable, Hashable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The text between parameters: one more than ``values``.
    var segments: [String]
    /// The bound values, in order.
    public private(set) var values: [SQLValue]

    /// A statement of literal text with no parameters.
    ///
    /// - Parameter value: The SQL text.
    public init(stringLiteral value: String) {
        segments = [value]
        values = []
    }

    /// Builds a statement from its interpolation.
    ///
    /// - Parameter stringInterpolation: The pieces, with their values.
    public init(stringInterpolation: StringInterpolation) {
        segments = stringInterpolation.segments
        values = stringInterpolation.values
    }

    /// The statement as text and values for `dialect`: `?` or `$1`, `$2`, … where values are bound.
    ///
    /// - Parameter dialect: The database's dialect.
    /// - Returns: The text to prepare and the values to bind, in parameter order.
    public func rendered(for dialect: SQLDialect) -> (text: String, values: [SQLValue]) {
        (text(for: dialect), values)
    }

    /// The statement's text for `dialect`, parameters as `?` or `$n`.
    ///
    /// - Parameter dialect: The database's dialect.
    /// - Returns: The text to prepare.
    public func text(for dialect: SQLDialect) -> String {
        if segments.count == 1 { return segments[0] }
        switch dialect {
        case .sqlite:
            return segments.joined(separator: "?")
        case .postgres:
            var text = segments[0]
            for index in 1..<segments.count {
                text += "$"
                text += String(index)
                text += segments[index]
            }
            return text
        }
    }

    /// The SQLite rendering (for logs; values are not shown).
    public var description: String { text(for: .sqlite) }

    /// Appends another statement's text and values.
    ///
    /// - Parameter other: The fragment to add.
    public mutating func append(_ other: SQL) {
        segments[segments.count - 1] += other.segments[0]
        segments += other.segments.dropFirst()
        values += other.values
    }

    /// Whether `name` can go into SQL as an identifier: an ASCII letter or `_`, then letters, digits and `_`.
    ///
    /// - Parameter name: The would-be identifier.
    /// - Returns: `true` if ``StringInterpolation/appendInterpolation(identifier:)`` takes it.
    public static func isValidIdentifier(_ name: String) -> Bool {
        guard let first = name.utf8.first, first == UInt8(ascii: "_") || isLetter(first) else { return false }
        return name.utf8.allSatisfy { $0 == UInt8(ascii: "_") || isLetter($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    /// Collects literal text and bound values.
    public struct StringInterpolation: StringInterpolationProtocol, Sendable {
        var segments: [String] = [""]
        var values: [SQLValue] = []

        /// Reserves room for the pieces.
        ///
        /// - Parameters:
        ///   - literalCapacity: The literal text's length.
        ///   - interpolationCount: How many interpolations follow.
        public init(literalCapacity: Int, interpolationCount: Int) {
            segments.reserveCapacity(interpolationCount + 1)
            values.reserveCapacity(interpolationCount)
        }

        /// Appends literal SQL text.
        ///
        /// - Parameter literal: Text from the source.
        public mutating func appendLiteral(_ literal: String) {
            segments[segments.count - 1] += literal
        }

        /// Binds a value: a parameter in the text, the value beside it.
        ///
        /// - Parameter value: The value (an optional binds `NULL` for `nil`).
        public mutating func appendInterpolation(_ value: some SQLBindable) {
            values.append(value.sqlValue)
            segments.append("")
        }

        /// Binds an optional value: `NULL` for `nil`.
        ///
        /// - Parameter value: The value, or `nil`.
        public mutating func appendInterpolation<Value: SQLBindable>(_ value: Value?) {
            values.append(value?.sqlValue ?? .null)
            segments.append("")
        }

        /// Splices a fragment with its own parameters.
        ///
        /// - Parameter fragment: SQL built the same way.
        public mutating func appendInterpolation(_ fragment: SQL) {
            segments[segments.count - 1] += fragment.segments[0]
            segments += fragment.segments.dropFirst()
            values += fragment.values
        }

        /// Splices an identifier (a table or column name), double-quoted.
        ///
        /// A name that is not ``SQL/isValidIdentifier(_:)`` is a programming error and stops the
        /// program: identifiers come from code, never from requests.
        ///
        /// - Parameter name: The identifier.
        public mutating func appendInterpolation(identifier name: String) {
            precondition(SQL.isValidIdentifier(name), "'\(name)' is not an SQL identifier (letters, digits and _ only)")
            segments[segments.count - 1] += "\"" + name + "\""
        }
    }
}

extension Sequence<SQL> {
    /// The fragments one after another, `separator` between each two.
    ///
    /// ```swift
    /// let participants = [(id: "p1", email: "zoë@example.com"), (id: "p2", email: "li@example.com")]
    /// let rows: SQL = participants.map { p in "(\(p.id), \(p.email))" }.joined(separator: ", ")
    /// ```
    ///
    /// - Parameter separator: What goes between fragments, such as `", "`.
    /// - Returns: One fragment.
    public func joined(separator: SQL) -> SQL {
        var result: SQL = ""
        var first = true
        for fragment in self {
            if !first { result.append(separator) }
            result.append(fragment)
            first = false
        }
        return result
    }
}
