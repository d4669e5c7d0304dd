import CSQLite
import Foundation

/// A prepared SQL statement: bind arguments, step through rows, reset, repeat.
///
/// Get one from ``SQLiteConnection/cachedStatement(sql:)`` (reused, prepared once per
/// connection) or ``SQLiteConnection/prepare(_:)``. A statement belongs to its
/// connection and, like it, must stay on the connection's executor.
///
/// ```swift
/// let insert = try db.cachedStatement(sql: "INSERT INTO records (zone, name, data) VALUES (?, ?, ?)")
/// for record in batch {
///     try insert.execute(binding: record.zone, record.name, record.data)
/// }
///
/// let names = try db.cachedStatement(sql: "SELECT name FROM records WHERE zone = :zone ORDER BY name")
/// try names.forEachRow(["zone": zone]) { row in
///     print(try row[0] as String)
/// }
/// ```
///
/// Related SQLite documentation: <https://www.sqlite.org/c3ref/stmt.html>
public final class SQLiteStatement {
    /// The SQL text of the statement.
    public let sql: String
    let handle: OpaquePointer
    let connectionHandle: OpaquePointer
    private var columnNamesStorage: [String]?
    private var columnIndexes: [String: Int]?
    private var parameterNamesStorage: [String?]?

    init(handle: OpaquePointer, connectionHandle: OpaquePointer, sql: String) {
        self.handle = handle
        self.connectionHandle = connectionHandle
        self.sql = sql
    }

    deinit {
        // NB: > Invoking sqlite3_finalize() on a NULL pointer is a harmless no-op. […]
        // > The application must finalize every prepared statement in order to avoid
        // > resource leaks.
        sqlite3_finalize(handle)
    }

    /// The number of parameters: the largest parameter index.
    public var parameterCount: Int { Int(sqlite3_bind_parameter_count(handle)) }

    /// The number of columns each row has.
    public var columnCount: Int { Int(sqlite3_column_count(handle)) }

    /// The names of the result columns, in order.
    public var columnNames: [String] {
        if let columnNamesStorage { return columnNamesStorage }
        let names = (0..<Int32(columnCount)).map { index in
            sqlite3_column_name(handle, index).map { String(cString: $0) } ?? ""
        }
        columnNamesStorage = names
        return names
    }

    /// Whether the statement only reads (`sqlite3_stmt_readonly`).
    public var isReadOnly: Bool { sqlite3_stmt_readonly(handle) != 0 }

    /// The index of the column called `name`, compared case-insensitively as SQLite does; the first wins.
    ///
    /// - Parameter name: A result column name.
    /// - Returns: The 0-based index, or `nil`.
    public func columnIndex(named name: String) -> Int? {
        if columnIndexes == nil {
            var indexes: [String: Int] = [:]
            for (index, column) in columnNames.enumerated() where indexes[column] == nil {
                indexes[column] = index
            }
            columnIndexes = indexes
        }
        if let index = columnIndexes?[name] { return index }
        let lowered = name.lowercased()
        return columnNames.firstIndex { $0.lowercased() == lowered }
    }

    // MARK: Binding

    /// Binds a value to the parameter at `position` (1-based, as in SQLite's `?NNN`).
    ///
    /// - Parameters:
    ///   - value: The value; `nil` binds `NULL`.
    ///   - position: The 1-based parameter index.
    /// - Throws: ``SQLiteError`` with ``SQLiteError/Code/range`` if there is no such parameter.
    public func bind(_ value: some SQLiteValueConvertible, at position: Int) throws {
        try bindValue(value.sqliteValue, at: Int32(clamping: position))
    }

    /// Binds a value to the parameter called `name` (`:name`, `@name` or `$name`; the prefix may be omitted for `:`).
    ///
    /// - Parameters:
    ///   - value: The value; `nil` binds `NULL`.
    ///   - name: The parameter name.
    /// - Throws: ``SQLiteError`` with ``SQLiteError/Code/range`` if there is no such parameter.
    public func bind(_ value: some SQLiteValueConvertible, named name: String) throws {
        let bare = SQLiteArguments.bareName(name)
        guard let index = parameterNames.firstIndex(where: { $0 == bare }) else {
            throw SQLiteError(code: .range, message: "no parameter named \(name)", sql: sql, operation: "bind")
        }
        try bindValue(value.sqliteValue, at: Int32(index + 1))
    }

    /// Binds all parameters at once, checking that each gets a value.
    ///
    /// - Parameter arguments: Positional or named values.
    /// - Throws: ``SQLiteError`` with ``SQLiteError/Code/range`` if the arguments do not match the parameters.
    public func bind(_ arguments: SQLiteArguments) throws {
        switch arguments.storage {
        case .positional(let values):
            guard values.count == parameterCount else {
                throw SQLiteError(
                    code: .range,
                    message: "wrong number of arguments: \(values.count) given, \(parameterCount) expected",
                    sql: sql, operation: "bind")
            }
            var position: Int32 = 1
            for value in values {
                try bindValue(value, at: position)
                position += 1
            }
        case .named(let values):
            for (index, name) in parameterNames.enumerated() {
                guard let name else {
                    throw SQLiteError(
                        code: .range, message: "parameter \(index + 1) is positional; use positional arguments",
                        sql: sql, operation: "bind")
                }
                guard let value = values[name] else {
                    throw SQLiteError(code: .range, message: "missing argument for :\(name)", sql: sql, operation: "bind")
                }
                try bindValue(value, at: Int32(index + 1))
            }
        }
    }

    /// Binds the values to parameters 1, 2, … in order, without allocating.
    ///
    /// - Parameter values: One value per parameter.
    /// - Throws: ``SQLiteError`` with ``SQLiteError/Code/range`` if the count differs from ``parameterCount``.
    public func bind<each Value: SQLiteValueConvertible>(values: repeat each Value) throws {
        var position: Int32 = 0
        for value in repeat each values {
            position += 1
            try bindValue(value.sqliteValue, at: position)
        }
        guard position == Int32(parameterCount) else {
            throw SQLiteError(
                code: .range, message: "wrong number of arguments: \(position) given, \(parameterCount) expected",
                sql: sql, operation: "bind")
        }
    }

    /// Sets every parameter back to `NULL`.
    public func clearBindings() {
        sqlite3_clear_bindings(handle)
    }

    /// The bare names of the parameters, `nil` for anonymous `?` ones; index 0 is parameter 1.
    var parameterNames: [String?] {
        if let parameterNamesStorage { return parameterNamesStorage }
        let names: [String?] = (0..<Int32(parameterCount)).map { index in
            sqlite3_bind_parameter_name(handle, index + 1).map { SQLiteArguments.bareName(String(cString: $0)) }
        }
        parameterNamesStorage = names
        return names
    }

    func bindValue(_ value: SQLiteValue, at position: Int32) throws {
        let code: Int32
        switch value {
        case .null:
            code = sqlite3_bind_null(handle, position)
        case .integer(let integer):
            code = sqlite3_bind_int64(handle, position, integer)
        case .real(let real):
            code = sqlite3_bind_double(handle, position, real)
        case .text(var text):
            code = text.withUTF8 { bytes in
                guard let base = bytes.baseAddress else {
                    // NB: a NULL pointer would bind NULL; an empty string must stay text.
                    return sqlite3_bind_text(handle, position, "", 0, sqliteTransient)
                }
                return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { chars in
                    sqlite3_bind_text64(handle, position, chars, UInt64(bytes.count), sqliteTransient, UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let data):
            if data.isEmpty {
                // NB: > If the third parameter to sqlite3_bind_blob() is a NULL pointer then the
                // > fourth parameter is ignored and the end result is the same as sqlite3_bind_null().
                // An empty blob is not NULL, so bind a zero-length blob explicitly.
                code = sqlite3_bind_zeroblob(handle, position, 0)
            } else {
                code = data.withUnsafeBytes { bytes in
                    sqlite3_bind_blob64(handle, position, bytes.baseAddress, UInt64(bytes.count), sqliteTransient)
                }
            }
        }
        guard code == SQLITE_OK else {
            throw SQLiteError(code: code, handle: connectionHandle, sql: sql, operation: "bind")
        }
    }

    // MARK: Stepping

    /// Advances to the next row.
    ///
    /// - Returns: `true` if a row is available (read it with ``row``), `false` when the statement is done.
    /// - Throws: ``SQLiteError`` if the step fails; the statement should then be reset.
    @discardableResult
    public func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code: throw SQLiteError(code: code, handle: connectionHandle, sql: sql, operation: "step")
        }
    }

    /// The current row; valid until the next ``step()`` or ``reset()``.
    public var row: SQLiteRow { SQLiteRow(statement: self) }

    /// Rewinds the statement so it can run again; bindings are kept.
    ///
    /// Resetting also ends the implicit read transaction an unfinished `SELECT` holds.
    public func reset() {
        // NB: > If the most recent call to sqlite3_step(S) for the prepared statement S
        // > indicated an error, then sqlite3_reset(S) returns an appropriate error code.
        // That error was already thrown by step(); the reset itself cannot fail.
        sqlite3_reset(handle)
    }

    /// Whether the statement has been stepped and not yet reset or finished.
    var isBusy: Bool { sqlite3_stmt_busy(handle) != 0 }
}

@available(*, unavailable, message: "A statement is confined to its connection's executor")
extension SQLiteStatement: Sendable {}
