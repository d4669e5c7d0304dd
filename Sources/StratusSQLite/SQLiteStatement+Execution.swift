extension SQLiteStatement {
    /// Runs the statement to completion with its current bindings, then resets it.
    ///
    /// - Throws: ``SQLiteError`` if a step fails.
    public func execute() throws {
        defer { reset() }
        while try step() {}
    }

    /// Binds `arguments`, runs the statement to completion, then resets it.
    ///
    /// ```swift
    /// try statement.execute(["id": 7, "body": "Hello"])
    /// ```
    ///
    /// - Parameter arguments: Positional or named values for every parameter.
    /// - Throws: ``SQLiteError`` if binding or a step fails.
    public func execute(_ arguments: SQLiteArguments) throws {
        defer { reset() }
        try bind(arguments)
        while try step() {}
    }

    /// Binds the values in order, runs the statement to completion, then resets it; allocation-free.
    ///
    /// ```swift
    /// try insert.execute(binding: zone, name, Optional<Data>.none)
    /// ```
    ///
    /// - Parameter values: One value per parameter.
    /// - Throws: ``SQLiteError`` if binding or a step fails.
    public func execute<each Value: SQLiteValueConvertible>(binding values: repeat each Value) throws {
        defer { reset() }
        try bind(values: repeat each values)
        while try step() {}
    }

    /// Binds `arguments` (if any) and calls `body` with each row, then resets the statement.
    ///
    /// The row is the same view each time; nothing is allocated per row beyond what `body` reads.
    ///
    /// - Parameters:
    ///   - arguments: Values for the parameters; omit them to keep the current bindings.
    ///   - body: Reads one row.
    /// - Throws: ``SQLiteError`` if binding or a step fails, or what `body` throws.
    public func forEachRow(_ arguments: SQLiteArguments? = nil, _ body: (SQLiteRow) throws -> Void) throws {
        defer { reset() }
        if let arguments {
            try bind(arguments)
        }
        let row = self.row
        while try step() {
            try body(row)
        }
    }

    /// Binds `arguments` (if any) and returns every row transformed.
    ///
    /// - Parameters:
    ///   - arguments: Values for the parameters; omit them to keep the current bindings.
    ///   - transform: Makes a value from one row.
    /// - Returns: One value per row, in order.
    /// - Throws: ``SQLiteError`` if binding or a step fails, or what `transform` throws.
    public func fetchAll<Element>(_ arguments: SQLiteArguments? = nil, _ transform: (SQLiteRow) throws -> Element) throws -> [Element] {
        var elements: [Element] = []
        try forEachRow(arguments) { row in
            elements.append(try transform(row))
        }
        return elements
    }

    /// Binds `arguments` (if any) and returns the first row transformed.
    ///
    /// - Parameters:
    ///   - arguments: Values for the parameters; omit them to keep the current bindings.
    ///   - transform: Makes a value from the row.
    /// - Returns: The value for the first row, or `nil` if there is none.
    /// - Throws: ``SQLiteError`` if binding or the step fails, or what `transform` throws.
    public func fetchOne<Element>(_ arguments: SQLiteArguments? = nil, _ transform: (SQLiteRow) throws -> Element) throws -> Element? {
        defer { reset() }
        if let arguments {
            try bind(arguments)
        }
        guard try step() else { return nil }
        return try transform(row)
    }

    /// Returns the first column of every row, converted to `Value`.
    ///
    /// - Parameters:
    ///   - type: The type to read.
    ///   - arguments: Values for the parameters; omit them to keep the current bindings.
    /// - Returns: One value per row, in order.
    /// - Throws: ``SQLiteError`` if a step fails or a value does not convert.
    public func fetchAll<Value: SQLiteValueConvertible>(_ type: Value.Type, _ arguments: SQLiteArguments? = nil) throws -> [Value] {
        try fetchAll(arguments) { row in try row[0] as Value }
    }

    /// Returns the first column of the first row, converted to `Value`.
    ///
    /// - Parameters:
    ///   - type: The type to read.
    ///   - arguments: Values for the parameters; omit them to keep the current bindings.
    /// - Returns: The value, or `nil` if there is no row.
    /// - Throws: ``SQLiteError`` if the step fails or the value does not convert.
    public func fetchOne<Value: SQLiteValueConvertible>(_ type: Value.Type, _ arguments: SQLiteArguments? = nil) throws -> Value? {
        try fetchOne(arguments) { row in try row[0] as Value }
    }
}
