import Foundation
import StratusPostgres
import Testing

/// Statements kept prepared on a connection (`PostgresStatement.prepared`): parsed once, then only
/// executed; prepared again when the `Parse` never ran (an aborted pipeline) or the session is new.
@Suite(.enabled(if: PostgresScratch.isEnabled, "set STRATUS_POSTGRES_URL (make test does)"))
struct PostgresPreparedStatementTests {
    static let insert = "INSERT INTO p (k, v) SELECT * FROM unnest($1::text[], $2::bigint[])"
    static let read = "SELECT v FROM p WHERE k = ANY($1::text[]) ORDER BY k"

    static func values(_ db: PostgresConnection, _ keys: [String]) throws -> [Int64] {
        try db.pipeline([PostgresStatement(read, [PostgresArray(keys)], prepared: true)])[0].map { try $0[0] as Int64 }
    }

    /// How many statements the session keeps prepared.
    static func preparedCount(_ db: PostgresConnection) throws -> Int64 {
        try #require(try db.queryFirst("SELECT count(*) FROM pg_prepared_statements"))[0]
    }

    @Test func aPreparedStatementIsParsedOnceAndRunsWithEachUsesParameters() throws {
        let scratch = try PostgresScratch()
        defer { try? scratch.drop() }
        let db = try scratch.connect()
        try db.execute("CREATE TABLE p (k TEXT PRIMARY KEY, v BIGINT NOT NULL)")
        // Twice in one pipeline, new: one Parse, two executions.
        try db.pipeline([
            PostgresStatement(Self.insert, [PostgresArray(["a", "b"]), PostgresArray([Int64(1), 2])], prepared: true),
            PostgresStatement(Self.insert, [PostgresArray(["c"]), PostgresArray([Int64(3)])], prepared: true),
        ])
        #expect(try Self.preparedCount(db) == 1)
        for round in 0..<8 {
            #expect(try Self.values(db, ["a", "c"]) == [1, 3], "round \(round)")
        }
        #expect(try Self.values(db, ["b"]) == [2])
        #expect(try Self.preparedCount(db) == 2)
        // A column added to the table: PostgreSQL plans the kept statements again.
        try db.execute("ALTER TABLE p ADD COLUMN w TEXT")
        #expect(try Self.values(db, ["a", "b", "c"]) == [1, 2, 3])
    }

    @Test func aParseThatNeverRanIsSentAgainAndAFailingOneIsReported() throws {
        let scratch = try PostgresScratch()
        defer { try? scratch.drop() }
        let db = try scratch.connect()
        try db.execute("CREATE TABLE p (k TEXT PRIMARY KEY, v BIGINT NOT NULL)")
        // The first statement fails: the pipeline is aborted before the new statement's Parse.
        #expect(throws: PostgresError.self) {
            try db.pipeline([
                PostgresStatement("SELECT no_such_column FROM p"),
                PostgresStatement(Self.read, [PostgresArray(["a"])], prepared: true),
            ])
        }
        #expect(try Self.preparedCount(db) == 0)
        try db.execute("INSERT INTO p VALUES ('a', 7)")
        #expect(try Self.values(db, ["a"]) == [7])
        // A statement PostgreSQL cannot parse fails as an unnamed one would, and is not kept.
        let error = try #require(throws: PostgresError.self) {
            try db.pipeline([PostgresStatement("SELECT v FROM nowhere WHERE k = $1", ["a"], prepared: true)])
        }
        #expect(error.code == .undefinedTable)
        #expect(try Self.preparedCount(db) == 1)
        // A new session (reconnection) prepares again.
        try db.reconnect()
        #expect(try Self.preparedCount(db) == 0)
        #expect(try Self.values(db, ["a"]) == [7])
        #expect(try Self.preparedCount(db) == 1)
    }
}
