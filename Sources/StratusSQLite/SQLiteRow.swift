import CSQLite
import Foundation

/// The current row of a statement, read in place: nothing is copied until you ask for a value.
///
/// A row is valid only inside the closure that receives it (or until the statement's
/// next ``SQLiteStatement/step()``); do not keep it.
///
/// ```swift
/// try db.forEachRow("SELECT id, name, data, modified FROM records WHERE zone = ?", [zone]) { row in
///     let id: Int64 = try row[0]
///     let name = try row["name"] as String
///     let data = try row[2] as Data?
///     let modified: Date = try row["modified"]
/// }
/// ```
///
/// Reading converts the stored value with ``SQLiteValueConvertible/init(sqliteValue:)``;
/// a value that does not convert (text read as `Int64`, `NULL` read as a non-optional)
/// throws ``SQLiteError`` with code ``SQLiteError/Code/mismatch`` naming the column and
/// the SQL. Column indexes start at 0; an index out of range is a programming error
/// and stops the program.
public struct SQLiteRow {
    let statement: SQLiteStatement

    /// The number of columns.
    public var count: Int { statement.columnCount }

    /// The name of the column at `index`.
    ///
    /// - Parameter index: The 0-based column index.
    /// - Returns: The name SQLite gives the column.
    public func columnName(at index: Int) -> String {
        checkIndex(index)
        return statement.columnNames[index]
    }

    /// Reads and converts the value at `index`.
    ///
    /// - Parameter index: The 0-based column index.
    /// - Throws: ``SQLiteError`` with ``SQLiteError/Code/mismatch`` if the value does not convert to `Value`.
    public subscript<Value: SQLiteValueConvertible>(_ index: Int) -> Value {
        get throws { try converted(at: index) }
    }

    /// The value at `index` converted (the subscript's reading, callable without type context).
    func converted<Value: SQLiteValueConvertible>(at index: Int, as type: Value.Type = Value.self) throws -> Value {
        let value = self.value(at: index)
        guard let converted = Value(sqliteValue: value) else {
            throw mismatch(value, at: index, as: Value.self)
        }
        return converted
    }

    /// Reads and converts the value of the column called `name` (case-insensitive).
    ///
    /// - Parameter name: The column name.
    /// - Throws: ``SQLiteError`` with ``SQLiteError/Code/error`` if there is no such column, or
    ///   ``SQLiteError/Code/mismatch`` if the value does not convert to `Value`.
    public subscript<Value: SQLiteValueConvertible>(_ name: String) -> Value {
        get throws {
            try self[index(of: name)]
        }
    }

    /// Reads the value at `index` as stored.
    ///
    /// - Parameter index: The 0-based column index.
    /// - Returns: The value, in its storage class.
    public func value(at index: Int) -> SQLiteValue {
        checkIndex(index)
        let handle = statement.handle
        let column = Int32(index)
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT:
            return .text(text(at: column))
        case SQLITE_BLOB:
            // NB: > the result of sqlite3_column_blob() is a NULL pointer [for a zero-length BLOB].
            // Call column_blob before column_bytes, as the docs advise.
            guard let bytes = sqlite3_column_blob(handle, column) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: Int(sqlite3_column_bytes(handle, column))))
        default:
            return .null
        }
    }

    /// Reads the value of the column called `name` (case-insensitive) as stored.
    ///
    /// - Parameter name: The column name.
    /// - Returns: The value, in its storage class.
    /// - Throws: ``SQLiteError`` with ``SQLiteError/Code/error`` if there is no such column.
    public func value(named name: String) throws -> SQLiteValue {
        value(at: try index(of: name))
    }

    /// Whether the value at `index` is `NULL`.
    ///
    /// - Parameter index: The 0-based column index.
    /// - Returns: `true` for `NULL`.
    public func isNull(at index: Int) -> Bool {
        checkIndex(index)
        return sqlite3_column_type(statement.handle, Int32(index)) == SQLITE_NULL
    }

    /// Lends the bytes of a `BLOB` or `TEXT` value at `index` without copying them.
    ///
    /// `NULL` and empty values lend an empty buffer; numbers lend their text form, as
    /// SQLite converts them. The buffer is valid only inside `body`.
    ///
    /// - Parameters:
    ///   - index: The 0-based column index.
    ///   - body: Reads the bytes.
    /// - Returns: What `body` returns.
    public func withUnsafeBytes<Result>(at index: Int, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        checkIndex(index)
        let handle = statement.handle
        let column = Int32(index)
        // NB: > call sqlite3_column_text(), sqlite3_column_blob(), or sqlite3_column_text16()
        // > first to force the result into the desired format, then invoke
        // > sqlite3_column_bytes() or sqlite3_column_bytes16() to find the size of the result.
        let pointer: UnsafeRawPointer? =
            sqlite3_column_type(handle, column) == SQLITE_BLOB
            ? sqlite3_column_blob(handle, column)
            : sqlite3_column_text(handle, column).map { UnsafeRawPointer($0) }
        let count = Int(sqlite3_column_bytes(handle, column))
        return try body(UnsafeRawBufferPointer(start: count == 0 ? nil : pointer, count: count))
    }

    private func text(at column: Int32) -> String {
        let handle = statement.handle
        guard let bytes = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    private func index(of name: String) throws -> Int {
        guard let index = statement.columnIndex(named: name) else {
            throw SQLiteError(
                code: .error, message: "no column named \"\(name)\" in the result row", sql: statement.sql,
                operation: "read")
        }
        return index
    }

    private func checkIndex(_ index: Int) {
        precondition(
            index >= 0 && index < count,
            "column index \(index) out of range: the row has \(count) columns (\(statement.sql))")
    }

    private func mismatch<Value>(_ value: SQLiteValue, at index: Int, as type: Value.Type) -> SQLiteError {
        SQLiteError(
            code: .mismatch,
            message: "cannot read \(value.storageClass) from column \(index) (\"\(statement.columnNames[index])\") as \(Value.self)",
            sql: statement.sql, operation: "read")
    }
}

@available(*, unavailable, message: "A row is a view into a statement confined to its connection's executor")
extension SQLiteRow: Sendable {}
