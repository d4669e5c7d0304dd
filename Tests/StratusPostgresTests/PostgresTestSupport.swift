import Foundation
import StratusPostgres
import StratusTesting
import Testing

/// A schema of its own for one test, on the throwaway server (`STRATUS_POSTGRES_URL`).
struct PostgresScratch {
    let url: String
    let schema: String

    /// Whether the PostgreSQL tests run (configured, or required by `make test`).
    static var isEnabled: Bool { PostgresTestDatabase.isEnabled }

    init() throws {
        url = try PostgresTestDatabase.url()
        schema = "stratus_unit_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        let admin = try PostgresConnection(url: url)
        try admin.execute("CREATE SCHEMA \(schema)")
    }

    var setup: [String] { ["SET search_path TO \(schema)"] }

    func connect() throws -> PostgresConnection {
        try PostgresConnection(url: url, setup: setup)
    }

    func pool(size: Int = 2) -> PostgresConnectionPool {
        PostgresConnectionPool(url: url, size: size, setup: setup)
    }

    func drop() throws {
        try PostgresConnection(url: url).execute("DROP SCHEMA IF EXISTS \(schema) CASCADE")
    }
}
