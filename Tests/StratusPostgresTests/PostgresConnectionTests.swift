import Foundation
import StratusPostgres
import Testing

@Suite(.enabled(if: PostgresScratch.isEnabled, "set STRATUS_POSTGRES_URL (make test does)"))
struct PostgresConnectionTests {
    @Test func parametersRoundTripWithTheirTypes() throws {
        let scratch = try PostgresScratch()
        defer { try? scratch.drop() }
        let db = try scratch.connect()
        try db.execute("CREATE TABLE t (s TEXT, i BIGINT, d DOUBLE PRECISION, b BOOLEAN, x BYTEA, n TEXT)")
        let hostile = "Robert'); DROP TABLE t; -- \"quoted\" \\ ünïcødé"
        let bytes = Data([0, 1, 0x7F, 0x80, 0xFF])
        try db.execute(
            "INSERT INTO t VALUES ($1, $2, $3, $4, $5, $6)", [hostile, Int64.min, 0.1 + 0.2, true, bytes, String?.none]
        )
        let row = try #require(try db.queryFirst("SELECT s, i, d, b, x, n FROM t"))
        #expect(try row[0] as String == hostile)
        #expect(try row[1] as Int64 == Int64.min)
        #expect(try row[2] as Double == 0.1 + 0.2)
        #expect(try row[3] as Bool == true)
        #expect(try row[4] as Data == bytes)
        #expect(try row[5] as String? == nil)
        #expect(throws: PostgresError.self) { try row[5] as String }
        let matches = try db.query("SELECT i FROM t WHERE s = ANY($1::text[])", [PostgresArray(["a", hostile])])
        #expect(matches.count == 1)
    }

    @Test func errorsCarryTheSQLStateAndTheStatement() throws {
        let scratch = try PostgresScratch()
        defer { try? scratch.drop() }
        let db = try scratch.connect()
        try db.execute("CREATE TABLE u (k TEXT PRIMARY KEY)")
        try db.execute("INSERT INTO u VALUES ($1)", ["a"])
        let error = try #require(throws: PostgresError.self) { try db.execute("INSERT INTO u VALUES ($1)", ["a"]) }
        #expect(error.code == .uniqueViolation)
        #expect(error.sql == "INSERT INTO u VALUES ($1)")
        #expect(!error.description.contains("'a'"))
        let missing = try #require(throws: PostgresError.self) { try db.query("SELECT * FROM nowhere") }
        #expect(missing.code == .undefinedTable)
    }

    @Test func transactionsCommitOrRollBackAndSavepointsUndoTheirPart() throws {
        struct Boom: Error {}
        let scratch = try PostgresScratch()
        defer { try? scratch.drop() }
        let db = try scratch.connect()
        try db.execute("CREATE TABLE v (k BIGINT)")
        #expect(throws: Boom.self) {
            try db.transaction { db in
                try db.execute("INSERT INTO v VALUES (1)")
                throw Boom()
            }
        }
        try db.transaction { db in
            try db.execute("INSERT INTO v VALUES (2)")
            _ = try? db.savepoint { () throws -> Void in
                try db.execute("INSERT INTO v VALUES (3)")
                throw Boom()
            }
            // A failed statement inside a savepoint does not doom the transaction.
            _ = try? db.savepoint { try db.execute("INSERT INTO nowhere VALUES (4)") }
            try db.execute("INSERT INTO v VALUES (5)")
        }
        #expect(try db.query("SELECT k FROM v ORDER BY k").map { try $0[0] as Int64 } == [2, 5])
    }

    @Test func pipelinedStatementsRunInOrderAndStopAtTheFirstError() throws {
        let scratch = try PostgresScratch()
        defer { try? scratch.drop() }
        let db = try scratch.connect()
        try db.execute("CREATE TABLE p (k BIGINT PRIMARY KEY)")
        let outputs = try db.pipeline([
            PostgresStatement("INSERT INTO p VALUES ($1)", [Int64(1)]),
            PostgresStatement("INSERT INTO p VALUES ($1)", [Int64(2)]),
            PostgresStatement("SELECT k FROM p ORDER BY k"),
        ])
        #expect(try outputs[2].map { try $0[0] as Int64 } == [1, 2])
        let error = try #require(throws: PostgresError.self) {
            try db.transaction { db in
                try db.pipeline([
                    PostgresStatement("INSERT INTO p VALUES ($1)", [Int64(3)]),
                    PostgresStatement("INSERT INTO p VALUES ($1)", [Int64(1)]),
                    PostgresStatement("INSERT INTO p VALUES ($1)", [Int64(4)]),
                ])
            }
        }
        #expect(error.code == .uniqueViolation)
        #expect(error.sql == "INSERT INTO p VALUES ($1)")
        // The transaction rolled back, and the connection still works.
        #expect(try db.query("SELECT k FROM p ORDER BY k").map { try $0[0] as Int64 } == [1, 2])
    }

    @Test func poolReconnectsAfterTheServerDropsAConnection() async throws {
        let scratch = try PostgresScratch()
        defer { try? scratch.drop() }
        let pool = scratch.pool(size: 1)
        defer { pool.close() }
        let first = try await pool.withConnection { db in try db.queryFirst("SELECT pg_backend_pid()").map { try $0[0] as Int } }
        let killer = try scratch.connect()
        try killer.execute("SELECT pg_terminate_backend($1)", [first ?? 0])
        // The next statement on the dead connection fails; the slot reconnects on the use after it.
        _ = try? await pool.withConnection { db in try db.query("SELECT 1") }
        let second = try await pool.withConnection { db in
            (try db.queryFirst("SELECT pg_backend_pid()").map { try $0[0] as Int }, try db.queryFirst("SELECT current_schema()").map { try $0[0] as String })
        }
        #expect(second.0 != first)
        #expect(second.1 == scratch.schema)
    }

    @Test func listenerDeliversNotificationsOnlyAfterCommit() async throws {
        let scratch = try PostgresScratch()
        defer { try? scratch.drop() }
        let channel = "wake_\(scratch.schema)"
        let listener = try PostgresNotificationListener(url: scratch.url, channels: [channel])
        defer { listener.stop() }
        let sender = try scratch.connect()
        try sender.transaction { db in
            try db.execute("SELECT pg_notify($1, $2)", [channel, "first"])
        }
        try sender.execute("SELECT pg_notify($1, $2)", [channel, "second"])
        var received: [String] = []
        for await notification in listener.notifications {
            #expect(notification.channel == channel)
            received.append(notification.payload)
            if received.count == 2 { break }
        }
        #expect(received == ["first", "second"])
    }

    @Test func migratorAppliesOnceAndRefusesANewerSchema() async throws {
        let scratch = try PostgresScratch()
        defer { try? scratch.drop() }
        let pool = scratch.pool()
        defer { pool.close() }
        var migrator = PostgresMigrator()
        migrator.registerMigration("one") { db in try db.execute("CREATE TABLE m (k BIGINT)") }
        try await migrator.migrate(pool)
        try await migrator.migrate(pool)
        _ = try await pool.withConnection { db in try db.execute("INSERT INTO stratus_migrations (identifier) VALUES ('from-the-future')") }
        let error = await #expect(throws: PostgresError.self) { try await migrator.migrate(pool) }
        #expect(error?.code == .schemaTooNew)
    }
}
