import StratusSQLite
import Testing

@Suite struct SQLiteTransactionTests {
    private struct Failure: Error {}

    private func makeLog() throws -> TestConnection {
        let test = try TestConnection()
        try test.db.execute(sql: "CREATE TABLE log (event TEXT NOT NULL)")
        return test
    }

    private func events(_ test: TestConnection) throws -> [String] {
        try test.db.fetchAll(String.self, "SELECT event FROM log ORDER BY rowid")
    }

    /// A transaction commits when its closure returns, and returns the closure's value.
    @Test(arguments: [SQLiteTransactionKind.deferred, .immediate, .exclusive])
    func transactionCommitsOnReturn(kind: SQLiteTransactionKind) throws {
        let test = try makeLog()
        let id = try test.db.transaction(kind) { db in
            #expect(db.isInTransaction)
            try db.execute("INSERT INTO log (event) VALUES ('a')")
            return db.lastInsertRowID
        }
        #expect(id == 1)
        #expect(!test.db.isInTransaction)
        #expect(try events(test) == ["a"])
    }

    /// A transaction rolls back everything when its closure throws, and rethrows.
    @Test func transactionRollsBackOnThrow() throws {
        let test = try makeLog()
        #expect(throws: Failure.self) {
            try test.db.transaction { db in
                try db.execute("INSERT INTO log (event) VALUES ('lost')")
                throw Failure()
            }
        }
        #expect(!test.db.isInTransaction)
        #expect(try events(test) == [])
    }

    /// An SQL error inside a transaction rolls back the earlier statements.
    @Test func sqlErrorRollsBackTransaction() throws {
        let test = try makeLog()
        #expect(throws: SQLiteError.self) {
            try test.db.transaction(.immediate) { db in
                try db.execute("INSERT INTO log (event) VALUES ('lost')")
                try db.execute("INSERT INTO log (event) VALUES (NULL)")
            }
        }
        #expect(try events(test) == [])
    }

    /// Rolling back a nested savepoint keeps the outer transaction's work.
    @Test func nestedSavepointRollbackKeepsOuterWork() throws {
        let test = try makeLog()
        try test.db.transaction { db in
            try db.execute("INSERT INTO log (event) VALUES ('outer')")
            #expect(throws: Failure.self) {
                try db.savepoint { db in
                    try db.execute("INSERT INTO log (event) VALUES ('inner')")
                    throw Failure()
                }
            }
            #expect(db.isInTransaction)
            try db.execute("INSERT INTO log (event) VALUES ('after')")
        }
        #expect(try events(test) == ["outer", "after"])
    }

    /// Savepoints nest several levels; each rolls back only its own work.
    @Test func savepointsNestDeeply() throws {
        let test = try makeLog()
        try test.db.savepoint { db in
            try db.execute("INSERT INTO log (event) VALUES ('1')")
            try db.savepoint { db in
                try db.execute("INSERT INTO log (event) VALUES ('2')")
                try? db.savepoint { db in
                    try db.execute("INSERT INTO log (event) VALUES ('3')")
                    throw Failure()
                }
            }
        }
        #expect(try events(test) == ["1", "2"])
        #expect(!test.db.isInTransaction)
    }

    /// A savepoint outside a transaction commits like one when released, and rolls back when thrown.
    @Test func savepointOutsideTransactionActsAsOne() throws {
        let test = try makeLog()
        let value = try test.db.savepoint { db in
            try db.execute("INSERT INTO log (event) VALUES ('kept')")
            return 5
        }
        #expect(value == 5)
        #expect(throws: Failure.self) {
            try test.db.savepoint { db in
                try db.execute("INSERT INTO log (event) VALUES ('lost')")
                throw Failure()
            }
        }
        #expect(try events(test) == ["kept"])
        #expect(!test.db.isInTransaction)
    }

    /// A failing deferred foreign key check at COMMIT rolls back and throws.
    @Test func failingCommitRollsBack() throws {
        let test = try TestConnection()
        try test.db.execute(
            sql: """
                CREATE TABLE parent (id INTEGER PRIMARY KEY);
                CREATE TABLE child (parent INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
                """)
        let error = try #require(throws: SQLiteError.self) {
            try test.db.transaction { db in try db.execute("INSERT INTO child (parent) VALUES (1)") }
        }
        #expect(error.code == .constraintForeignKey)
        #expect(!test.db.isInTransaction)
        #expect(try test.db.fetchOne(Int.self, "SELECT count(*) FROM child") == 0)
    }

    /// Checkpointing a WAL connection copies the log into the file.
    @Test func checkpointCopiesTheLog() throws {
        let test = try makeLog()
        try test.db.execute("INSERT INTO log (event) VALUES ('x')")
        let result = try test.db.checkpoint(.truncate)
        #expect(result.walFrames == 0)
    }
}
