import Foundation
import StratusPostgres
import StratusSQL
import StratusSQLite
import StratusTesting
import Testing

/// The `SQLExecutor` contract, run on SQLite and (with `STRATUS_POSTGRES_URL`) on PostgreSQL:
/// the same statement, values and column reads behave alike on both.
@Suite struct SQLExecutorConformanceTests {
    enum Driver: String, CustomTestStringConvertible, CaseIterable {
        case sqlite, postgres
        var testDescription: String { rawValue }
        static var available: [Driver] { PostgresScratch.isEnabled ? allCases : [.sqlite] }
    }

    /// Runs `body` with an executor that has a table
    /// `t (k TEXT PRIMARY KEY, i BIGINT, d DOUBLE PRECISION, b BOOLEAN, x BYTEA, n TEXT)`, then removes it.
    static func withExecutor(_ driver: Driver, _ body: (any SQLExecutor) throws -> Void) throws {
        switch driver {
        case .sqlite:
            let directory = try TemporaryDirectory(prefix: "stratus-sql")
            defer { directory.remove() }
            let db = try SQLiteConnection(path: directory.path("t.sqlite"))
            try db.execute(sql: "CREATE TABLE t (k TEXT PRIMARY KEY, i INTEGER, d REAL, b INTEGER, x BLOB, n TEXT)")
            try body(db)
        case .postgres:
            let scratch = try PostgresScratch()
            defer { try? scratch.drop() }
            let db = try scratch.connect()
            try db.execute("CREATE TABLE t (k TEXT PRIMARY KEY, i BIGINT, d DOUBLE PRECISION, b BOOLEAN, x BYTEA, n TEXT)")
            try body(db)
        }
    }

    @Test(arguments: Driver.available)
    func valuesRoundTripWithTheirTypes(_ driver: Driver) throws {
        try Self.withExecutor(driver) { db throws in
            let hostile = "Robert'); DROP TABLE t; -- \"quoted\" \\ ? $1 ünïcødé"
            let bytes = Data([0, 1, 0x7F, 0x80, 0xFF])
            let missing: String? = nil
            let inserted = try db.execute(
                literal: "INSERT INTO t (k, i, d, b, x, n) VALUES (\(hostile), \(Int64.min), \(0.1 + 0.2), \(true), \(bytes), \(missing))")
            #expect(inserted == 1)
            let row = try #require(
                try db.fetchOne(literal: "SELECT k, i, d, b, x, n FROM t WHERE k = \(hostile)") { row in
                    (try row[0] as String, try row[1] as Int64, try row[2] as Double, try row[3] as Bool, try row[4] as Data, try row[5] as String?)
                })
            #expect(row.0 == hostile)
            #expect(row.1 == Int64.min)
            #expect(row.2 == 0.1 + 0.2)
            #expect(row.3 == true)
            #expect(row.4 == bytes)
            #expect(row.5 == nil)
        }
    }

    @Test(arguments: Driver.available)
    func readingNullAsANonOptionalThrows(_ driver: Driver) throws {
        try Self.withExecutor(driver) { db throws in
            try db.execute(literal: "INSERT INTO t (k) VALUES (\("a"))")
            #expect(throws: (any Error).self) { try db.fetchOne(literal: "SELECT n FROM t") { row in try row[0] as String } }
            #expect(try db.fetchOne(String?.self, literal: "SELECT n FROM t") == .some(nil))
        }
    }

    @Test(arguments: Driver.available)
    func executeCountsTheRowsItChanged(_ driver: Driver) throws {
        try Self.withExecutor(driver) { db throws in
            try db.executeBatch(literal: ["INSERT INTO t (k, i) VALUES (\("a"), \(1))", "INSERT INTO t (k, i) VALUES (\("b"), \(2))"])
            #expect(try db.execute(literal: "UPDATE t SET i = i + \(10)") == 2)
            #expect(try db.execute(literal: "INSERT INTO t (k, i) VALUES (\("a"), \(3)) ON CONFLICT DO NOTHING") == 0)
            #expect(try db.fetchAll(Int64.self, literal: "SELECT i FROM t ORDER BY k") == [11, 12])
        }
    }

    @Test(arguments: Driver.available)
    func aSavepointThatThrowsUndoesOnlyItsOwnWrites(_ driver: Driver) throws {
        struct Abandon: Error {}
        try Self.withExecutor(driver) { db throws in
            try db.inTransaction {
                try db.enqueue(literal: "INSERT INTO t (k) VALUES (\("kept"))")
                #expect(throws: Abandon.self) {
                    try db.inSavepoint {
                        try db.execute(literal: "INSERT INTO t (k) VALUES (\("undone"))")
                        throw Abandon()
                    }
                }
            }
            #expect(try db.fetchAll(String.self, literal: "SELECT k FROM t ORDER BY k") == ["kept"])
        }
    }

    @Test(arguments: Driver.available)
    func aTransactionThatThrowsLeavesNothing(_ driver: Driver) throws {
        struct Abandon: Error {}
        try Self.withExecutor(driver) { db throws in
            #expect(throws: Abandon.self) {
                try db.inTransaction {
                    try db.execute(literal: "INSERT INTO t (k) VALUES (\("gone"))")
                    throw Abandon()
                }
            }
            #expect(try db.fetchAll(String.self, literal: "SELECT k FROM t").isEmpty)
        }
    }

    @Test func sqliteReusesOnePreparedStatementPerRenderedText() throws {
        let directory = try TemporaryDirectory(prefix: "stratus-sql")
        defer { directory.remove() }
        let db = try SQLiteConnection(path: directory.path("t.sqlite"))
        try db.execute(sql: "CREATE TABLE t (k TEXT PRIMARY KEY)")
        let select = { (key: String) -> SQL in "SELECT k FROM t WHERE k = \(key)" }
        _ = try db.fetchOne(String.self, literal: select("a"))
        let first = try db.cachedStatement(sql: select("a").text(for: .sqlite))
        _ = try db.fetchOne(String.self, literal: select("b"))
        #expect(try db.cachedStatement(sql: select("b").text(for: .sqlite)) === first)
    }
}
