public import Foundation
public import StratusSQL

/// The shared SQL interface on SQLite: statements rendered with `?`, prepared once per text
/// and kept in the connection's statement cache.
extension SQLiteConnection: SQLExecutor {
    /// ``SQLDialect/sqlite``.
    public var dialect: SQLDialect { .sqlite }

    /// Runs one statement through the statement cache.
    ///
    /// - Parameter sql: Exactly one statement.
    /// - Returns: ``changes`` after it ran (meaningful for `INSERT`, `UPDATE` and `DELETE` only).
    /// - Throws: ``SQLiteError``.
    @discardableResult
    public func execute(literal sql: SQL) throws -> Int {
        let statement = try cachedStatement(sql: sql.text(for: .sqlite))
        defer { statement.reset() }
        try statement.bind(sqlValues: sql.values)
        while try statement.step() {}
        return changes
    }

    /// Calls `body` with each row, through the statement cache.
    ///
    /// - Parameters:
    ///   - sql: Exactly one statement.
    ///   - body: Reads one row.
    /// - Throws: ``SQLiteError``, or what `body` throws.
    public func forEachRow(literal sql: SQL, _ body: (any SQLRow) throws -> Void) throws {
        let statement = try cachedStatement(sql: sql.text(for: .sqlite))
        defer { statement.reset() }
        try statement.bind(sqlValues: sql.values)
        let row = statement.row
        while try statement.step() {
            try body(row)
        }
    }

    /// The first row, transformed; the statement stops there.
    ///
    /// - Parameters:
    ///   - sql: Exactly one statement.
    ///   - transform: Makes a value from the row.
    /// - Returns: The value, or `nil` without a row.
    /// - Throws: ``SQLiteError``, or what `transform` throws.
    public func fetchOne<Element>(literal sql: SQL, _ transform: (any SQLRow) throws -> Element) throws -> Element? {
        let statement = try cachedStatement(sql: sql.text(for: .sqlite))
        defer { statement.reset() }
        try statement.bind(sqlValues: sql.values)
        guard try statement.step() else { return nil }
        return try transform(statement.row)
    }

    /// Runs the statements one after another.
    ///
    /// - Parameter statements: The statements.
    /// - Throws: ``SQLiteError`` of the first that failed.
    public func executeBatch(literal statements: [SQL]) throws {
        for statement in statements { try execute(literal: statement) }
    }

    /// Runs the statement now: SQLite has no round trip to save.
    ///
    /// - Parameter sql: Exactly one statement.
    /// - Throws: ``SQLiteError``.
    public func enqueue(literal sql: SQL) throws {
        try execute(literal: sql)
    }

    /// Runs `body` in a deferred transaction (``transaction(_:_:)``).
    ///
    /// - Parameter body: The work.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or ``SQLiteError``.
    public func inTransaction<Result>(_ body: () throws -> Result) throws -> Result {
        try transaction(.deferred) { _ in try body() }
    }

    /// Runs `body` in a savepoint (``savepoint(_:)``).
    ///
    /// - Parameter body: The work.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or ``SQLiteError``.
    public func inSavepoint<Result>(_ body: () throws -> Result) throws -> Result {
        try savepoint { _ in try body() }
    }
}

extension SQLiteRow: SQLRow {
    /// Reads an integer (``SQLiteValueConvertible`` rules).
    public func int64(at index: Int) throws -> Int64 { try converted(at: index, as: Int64.self) }
    /// Reads a double (``SQLiteValueConvertible`` rules).
    public func double(at index: Int) throws -> Double { try converted(at: index, as: Double.self) }
    /// Reads an integer as a Boolean (non-zero is `true`).
    public func bool(at index: Int) throws -> Bool { try converted(at: index, as: Bool.self) }
    /// Reads text.
    public func string(at index: Int) throws -> String { try converted(at: index, as: String.self) }
    /// Reads a blob (or text's UTF-8 bytes).
    public func data(at index: Int) throws -> Data { try converted(at: index, as: Data.self) }
}

extension SQLiteValue {
    /// The SQLite form of a shared value: a Boolean is the integer 0 or 1.
    ///
    /// - Parameter value: The value to bind.
    public init(_ value: SQLValue) {
        switch value {
        case .null: self = .null
        case .integer(let integer): self = .integer(integer)
        case .real(let real): self = .real(real)
        case .text(let text): self = .text(text)
        case .blob(let data): self = .blob(data)
        case .bool(let bool): self = .integer(bool ? 1 : 0)
        }
    }
}

extension SQLiteStatement {
    /// Binds shared values to parameters 1, 2, … in order.
    ///
    /// - Throws: ``SQLiteError`` with ``SQLiteError/Code/range`` when the count differs from ``parameterCount``.
    func bind(sqlValues values: [SQLValue]) throws {
        guard values.count == parameterCount else {
            throw SQLiteError(
                code: .range, message: "wrong number of arguments: \(values.count) given, \(parameterCount) expected", sql: sql,
                operation: "bind")
        }
        var position: Int32 = 1
        for value in values {
            try bindValue(SQLiteValue(value), at: position)
            position += 1
        }
    }
}
