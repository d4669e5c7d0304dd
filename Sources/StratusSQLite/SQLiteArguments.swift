/// The values bound to a statement's parameters: by position (`?`, `?NNN`) or by name (`:name`, `@name`, `$name`).
///
/// Write positional arguments as an array literal and named ones as a dictionary
/// literal; `nil` binds `NULL`:
///
/// ```swift
/// try db.execute("INSERT INTO notes (id, body, due) VALUES (?, ?, ?)", [id, "Buy milk", nil])
/// try db.execute("UPDATE notes SET body = :body WHERE id = :id", ["id": id, "body": "Buy oat milk"])
/// ```
///
/// Binding checks that every parameter gets a value: a positional list must have
/// exactly as many values as the statement has parameters, and a named list must
/// name each parameter (names may be written with or without their prefix; extra
/// names are ignored). Otherwise binding throws ``SQLiteError/Code/range``.
///
/// For allocation-free binding in hot loops, bind values one by one with
/// ``SQLiteStatement/bind(_:at:)`` or ``SQLiteStatement/execute(binding:)``.
public struct SQLiteArguments: Sendable, Hashable {
    enum Storage: Sendable, Hashable {
        case positional([SQLiteValue])
        case named([String: SQLiteValue])
    }

    var storage: Storage

    /// Positional arguments, bound to parameters 1, 2, … in order.
    ///
    /// - Parameter values: One value per parameter.
    public init(_ values: [SQLiteValue]) {
        storage = .positional(values)
    }

    /// Positional arguments converted from Swift values.
    ///
    /// - Parameter values: One value per parameter.
    public init(_ values: [(any SQLiteValueConvertible)?]) {
        storage = .positional(values.map { $0?.sqliteValue ?? .null })
    }

    /// Named arguments; keys may omit the `:`, `@` or `$` prefix.
    ///
    /// - Parameter values: One value per parameter name.
    public init(named values: [String: SQLiteValue]) {
        var normalized: [String: SQLiteValue] = [:]
        normalized.reserveCapacity(values.count)
        for (name, value) in values {
            normalized[SQLiteArguments.bareName(name)] = value
        }
        storage = .named(normalized)
    }

    /// Whether there are no arguments.
    public var isEmpty: Bool {
        switch storage {
        case .positional(let values): values.isEmpty
        case .named(let values): values.isEmpty
        }
    }

    /// Strips the `:`, `@` or `$` prefix of a parameter name.
    static func bareName(_ name: String) -> String {
        guard let first = name.utf8.first, first == UInt8(ascii: ":") || first == UInt8(ascii: "@") || first == UInt8(ascii: "$")
        else { return name }
        return String(name.dropFirst())
    }
}

extension SQLiteArguments: ExpressibleByArrayLiteral {
    /// Positional arguments: `[id, "text", nil]`.
    ///
    /// - Parameter elements: One value per parameter.
    public init(arrayLiteral elements: (any SQLiteValueConvertible)?...) {
        self.init(elements)
    }
}

extension SQLiteArguments: ExpressibleByDictionaryLiteral {
    /// Named arguments: `["id": id, "body": "text"]`.
    ///
    /// - Parameter elements: Parameter names (with or without prefix) and their values.
    public init(dictionaryLiteral elements: (String, (any SQLiteValueConvertible)?)...) {
        var values: [String: SQLiteValue] = [:]
        values.reserveCapacity(elements.count)
        for (name, value) in elements {
            values[SQLiteArguments.bareName(name)] = value?.sqliteValue ?? .null
        }
        storage = .named(values)
    }
}
