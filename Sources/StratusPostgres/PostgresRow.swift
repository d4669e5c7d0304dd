/// One row of a result, as text columns, read with typed subscripts.
///
/// ```swift
/// let rows = try connection.query("SELECT id, name FROM zones WHERE owner = $1", [owner])
/// for row in rows { let id: Int64 = try row[0]; let name: String = try row[1] }
/// ```
public struct PostgresRow: Sendable {
    /// The columns' text (`nil` for `NULL`).
    public let values: [String?]
    /// The statement, for error messages.
    let sql: String

    init(values: [String?], sql: String) {
        self.values = values
        self.sql = sql
    }

    /// The column at `index`, which must not be `NULL`.
    ///
    /// - Throws: ``PostgresError`` (``PostgresError/Code/decoding``) when the column is `NULL` or does not parse.
    public subscript<T: PostgresDecodable>(index: Int) -> T {
        get throws { try decoded(at: index) }
    }

    /// The column at `index`, which must not be `NULL` (the subscript's reading, callable without type context).
    func decoded<T: PostgresDecodable>(at index: Int, as type: T.Type = T.self) throws -> T {
        guard let text = values[index] else {
            throw PostgresError(code: .decoding, message: "column \(index) is NULL, expected \(T.self)", sql: sql)
        }
        guard let value = T(postgresText: text) else {
            throw PostgresError(code: .decoding, message: "column \(index) does not read as \(T.self)", sql: sql)
        }
        return value
    }

    /// The column at `index`, or `nil` when it is `NULL`.
    ///
    /// - Throws: ``PostgresError`` when the column does not parse.
    public subscript<T: PostgresDecodable>(index: Int) -> T? {
        get throws {
            guard let text = values[index] else { return nil }
            guard let value = T(postgresText: text) else {
                throw PostgresError(code: .decoding, message: "column \(index) does not read as \(T.self)", sql: sql)
            }
            return value
        }
    }
}
