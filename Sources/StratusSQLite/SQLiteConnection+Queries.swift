extension SQLiteConnection {
    /// Runs one statement with `arguments`, using the statement cache; rows are discarded.
    ///
    /// ```swift
    /// try db.execute("UPDATE records SET data = :data WHERE id = :id", ["id": id, "data": data])
    /// if db.changes == 0 { /* no such record */ }
    /// ```
    ///
    /// - Parameters:
    ///   - sql: Exactly one SQL statement.
    ///   - arguments: Values for every parameter.
    /// - Throws: ``SQLiteError`` if preparing, binding or running fails.
    public func execute(_ sql: String, _ arguments: SQLiteArguments = []) throws {
        try cachedStatement(sql: sql).execute(arguments)
    }

    /// Runs one statement with the values bound in order, using the statement cache; allocation-free.
    ///
    /// ```swift
    /// try db.execute("DELETE FROM records WHERE zone = ? AND name = ?", binding: zone, name)
    /// ```
    ///
    /// - Parameters:
    ///   - sql: Exactly one SQL statement.
    ///   - values: One value per parameter.
    /// - Throws: ``SQLiteError`` if preparing, binding or running fails.
    public func execute<each Value: SQLiteValueConvertible>(_ sql: String, binding values: repeat each Value) throws {
        try cachedStatement(sql: sql).execute(binding: repeat each values)
    }

    /// Calls `body` with each row of a query, using the statement cache.
    ///
    /// Use it in hot loops: it allocates nothing per row beyond what `body` reads.
    ///
    /// ```swift
    /// var total: Int64 = 0
    /// try db.forEachRow("SELECT size FROM assets WHERE zone = ?", [zone]) { row in
    ///     total += try row[0] as Int64
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - sql: Exactly one SQL statement.
    ///   - arguments: Values for every parameter.
    ///   - body: Reads one row; valid only during the call.
    /// - Throws: ``SQLiteError`` if preparing, binding or a step fails, or what `body` throws.
    public func forEachRow(_ sql: String, _ arguments: SQLiteArguments = [], _ body: (SQLiteRow) throws -> Void) throws {
        try cachedStatement(sql: sql).forEachRow(arguments, body)
    }

    /// Returns every row of a query transformed, using the statement cache.
    ///
    /// ```swift
    /// let notes = try db.fetchAll("SELECT id, body FROM notes WHERE id > ?", [0]) { row in
    ///     (id: try row[0] as Int64, body: try row[1] as String)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - sql: Exactly one SQL statement.
    ///   - arguments: Values for every parameter.
    ///   - transform: Makes a value from one row.
    /// - Returns: One value per row, in order.
    /// - Throws: ``SQLiteError`` if preparing, binding or a step fails, or what `transform` throws.
    public func fetchAll<Element>(
        _ sql: String, _ arguments: SQLiteArguments = [], _ transform: (SQLiteRow) throws -> Element
    ) throws -> [Element] {
        try cachedStatement(sql: sql).fetchAll(arguments, transform)
    }

    /// Returns the first row of a query transformed, using the statement cache.
    ///
    /// - Parameters:
    ///   - sql: Exactly one SQL statement.
    ///   - arguments: Values for every parameter.
    ///   - transform: Makes a value from the row.
    /// - Returns: The value, or `nil` if the query returns no row.
    /// - Throws: ``SQLiteError`` if preparing, binding or the step fails, or what `transform` throws.
    public func fetchOne<Element>(
        _ sql: String, _ arguments: SQLiteArguments = [], _ transform: (SQLiteRow) throws -> Element
    ) throws -> Element? {
        try cachedStatement(sql: sql).fetchOne(arguments, transform)
    }

    /// Returns the first column of every row of a query, converted to `Value`.
    ///
    /// ```swift
    /// let names = try db.fetchAll(String.self, "SELECT name FROM zones ORDER BY name")
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to read.
    ///   - sql: Exactly one SQL statement.
    ///   - arguments: Values for every parameter.
    /// - Returns: One value per row, in order.
    /// - Throws: ``SQLiteError`` if a step fails or a value does not convert.
    public func fetchAll<Value: SQLiteValueConvertible>(
        _ type: Value.Type, _ sql: String, _ arguments: SQLiteArguments = []
    ) throws -> [Value] {
        try cachedStatement(sql: sql).fetchAll(type, arguments)
    }

    /// Returns the first column of the first row of a query, converted to `Value`.
    ///
    /// ```swift
    /// let count = try db.fetchOne(Int.self, "SELECT count(*) FROM records") ?? 0
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to read.
    ///   - sql: Exactly one SQL statement.
    ///   - arguments: Values for every parameter.
    /// - Returns: The value, or `nil` if the query returns no row.
    /// - Throws: ``SQLiteError`` if the step fails or the value does not convert.
    public func fetchOne<Value: SQLiteValueConvertible>(
        _ type: Value.Type, _ sql: String, _ arguments: SQLiteArguments = []
    ) throws -> Value? {
        try cachedStatement(sql: sql).fetchOne(type, arguments)
    }

    /// Whether a table (not a view) called `name` exists in the main schema.
    ///
    /// - Parameter name: The table name.
    /// - Returns: `true` if it exists.
    /// - Throws: ``SQLiteError`` if the schema cannot be read.
    public func tableExists(_ name: String) throws -> Bool {
        try fetchOne(Int.self, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [name]) != nil
    }
}
