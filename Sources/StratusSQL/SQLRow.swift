public import Foundation

/// One result row, read by column index whatever the database: the typed column access of ``SQLExecutor``.
///
/// Read with the subscript, typed by context: `let id: Int64 = try row[0]`, `try row[2] as String?`.
/// A value that does not read as the type asked for (text as an integer, `NULL` as a
/// non-optional) throws the driver's error, naming the column and the statement. A row may be
/// valid only inside the closure that receives it: do not keep it.
public protocol SQLRow {
    /// Whether the value at `index` is `NULL`.
    ///
    /// - Parameter index: The 0-based column index.
    func isNull(at index: Int) -> Bool

    /// Reads the column as an integer.
    ///
    /// - Parameter index: The 0-based column index.
    /// - Throws: The driver's error when the value is `NULL` or not an integer.
    func int64(at index: Int) throws -> Int64

    /// Reads the column as a double.
    ///
    /// - Parameter index: The 0-based column index.
    /// - Throws: The driver's error when the value is `NULL` or not a number.
    func double(at index: Int) throws -> Double

    /// Reads the column as a Boolean.
    ///
    /// - Parameter index: The 0-based column index.
    /// - Throws: The driver's error when the value is `NULL` or not a Boolean.
    func bool(at index: Int) throws -> Bool

    /// Reads the column as text.
    ///
    /// - Parameter index: The 0-based column index.
    /// - Throws: The driver's error when the value is `NULL` or not text.
    func string(at index: Int) throws -> String

    /// Reads the column as bytes.
    ///
    /// - Parameter index: The 0-based column index.
    /// - Throws: The driver's error when the value is `NULL` or not bytes.
    func data(at index: Int) throws -> Data
}

/// A Swift type read from one column of an ``SQLRow``.
public protocol SQLDecodable {
    /// Reads the value at `index`.
    ///
    /// - Parameters:
    ///   - row: The row.
    ///   - index: The 0-based column index.
    /// - Throws: The driver's error when the column does not read as `Self`.
    static func decode(from row: some SQLRow, at index: Int) throws -> Self
}

extension SQLRow {
    /// The column at `index`, read as the type the context asks for.
    ///
    /// - Parameter index: The 0-based column index.
    /// - Throws: The driver's error when the column does not read as `Value`.
    @inlinable
    public subscript<Value: SQLDecodable>(_ index: Int) -> Value {
        get throws { try Value.decode(from: self, at: index) }
    }
}

extension Int64: SQLDecodable {
    /// Reads an integer.
    @inlinable
    public static func decode(from row: some SQLRow, at index: Int) throws -> Int64 { try row.int64(at: index) }
}

extension Int: SQLDecodable {
    /// Reads an integer that fits in `Int`.
    @inlinable
    public static func decode(from row: some SQLRow, at index: Int) throws -> Int {
        let value = try row.int64(at: index)
        guard let exact = Int(exactly: value) else {
            throw SQLColumnError(message: "column \(index) holds \(value), which does not fit in Int")
        }
        return exact
    }
}

extension Double: SQLDecodable {
    /// Reads a double.
    @inlinable
    public static func decode(from row: some SQLRow, at index: Int) throws -> Double { try row.double(at: index) }
}

extension Bool: SQLDecodable {
    /// Reads a Boolean.
    @inlinable
    public static func decode(from row: some SQLRow, at index: Int) throws -> Bool { try row.bool(at: index) }
}

extension String: SQLDecodable {
    /// Reads text.
    @inlinable
    public static func decode(from row: some SQLRow, at index: Int) throws -> String { try row.string(at: index) }
}

extension Data: SQLDecodable {
    /// Reads bytes.
    @inlinable
    public static func decode(from row: some SQLRow, at index: Int) throws -> Data { try row.data(at: index) }
}

extension Array: SQLDecodable where Element == UInt8 {
    /// Reads bytes.
    @inlinable
    public static func decode(from row: some SQLRow, at index: Int) throws -> [UInt8] { [UInt8](try row.data(at: index)) }
}

extension Optional: SQLDecodable where Wrapped: SQLDecodable {
    /// `nil` for `NULL`, else the wrapped type's reading.
    @inlinable
    public static func decode(from row: some SQLRow, at index: Int) throws -> Wrapped? {
        row.isNull(at: index) ? nil : try Wrapped.decode(from: row, at: index)
    }
}

/// A column value that the driver read but that does not fit the Swift type asked for.
public struct SQLColumnError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What does not fit.
    public var message: String

    /// Creates an error.
    ///
    /// - Parameter message: What does not fit.
    public init(message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
