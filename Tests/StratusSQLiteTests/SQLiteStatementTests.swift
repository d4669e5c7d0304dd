import Foundation
import StratusSQLite
import Testing

@Suite struct SQLiteStatementTests {
    private func makeNotes() throws -> TestConnection {
        let test = try TestConnection()
        try test.db.execute(
            sql: """
                -- a script with comments
                CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL, rank REAL);
                INSERT INTO notes (body, rank) VALUES ('one', 1.0), ('two', 2.0);   /* trailing */
                INSERT INTO notes (body, rank) VALUES ('three', NULL);

                """)
        return test
    }

    /// Scripts run every statement, ignoring comments and whitespace.
    @Test func scriptsRunEveryStatement() throws {
        let test = try makeNotes()
        #expect(try test.db.fetchAll(String.self, "SELECT body FROM notes ORDER BY id") == ["one", "two", "three"])
    }

    /// Named parameters bind with any prefix, and keys may omit the colon.
    @Test func namedParametersBindByName() throws {
        let test = try makeNotes()
        try test.db.execute("UPDATE notes SET body = :body WHERE id = :id", ["id": 1, "body": "uno"])
        try test.db.execute("UPDATE notes SET body = @body WHERE id = $id", ["@body": "dos", "$id": 2])
        #expect(try test.db.fetchAll(String.self, "SELECT body FROM notes ORDER BY id") == ["uno", "dos", "three"])
        let statement = try test.db.prepare("SELECT body FROM notes WHERE id = :id")
        try statement.bind(3, named: "id")
        #expect(try statement.fetchOne(String.self) == "three")
        #expect(throws: SQLiteError.self) { try statement.bind(3, named: ":missing") }
    }

    /// A named argument list must cover every parameter.
    @Test func missingNamedArgumentIsAnError() throws {
        let test = try makeNotes()
        let error = try #require(throws: SQLiteError.self) {
            try test.db.execute("UPDATE notes SET body = :body WHERE id = :id", ["id": 1])
        }
        #expect(error.code == .range)
        #expect(error.message.contains("body"))
    }

    /// A positional argument list must match the parameter count.
    @Test func wrongArgumentCountIsAnError() throws {
        let test = try makeNotes()
        let error = try #require(throws: SQLiteError.self) {
            try test.db.execute("UPDATE notes SET body = ? WHERE id = ?", ["x"])
        }
        #expect(error.code == .range)
        #expect(error.sql == "UPDATE notes SET body = ? WHERE id = ?")
        #expect(throws: SQLiteError.self) { try test.db.fetchAll(String.self, "SELECT body FROM notes WHERE id = ?") }
    }

    /// Positional binding by index and the allocation-free variadic form both work, including nil.
    @Test func bindingByPositionAndVariadicValues() throws {
        let test = try makeNotes()
        try test.db.execute("INSERT INTO notes (id, body, rank) VALUES (?, ?, ?)", binding: Int64(10), "ten", Double?.none)
        let statement = try test.db.cachedStatement(sql: "SELECT body, rank FROM notes WHERE id = ?2 OR id = ?1 ORDER BY id")
        try statement.bind(10, at: 1)
        try statement.bind(1, at: 2)
        let rows = try statement.fetchAll { row in (try row[0] as String, try row[1] as Double?) }
        #expect(rows.map(\.0) == ["one", "ten"])
        #expect(rows.map(\.1) == [1.0, nil])
        #expect(throws: SQLiteError.self) { try statement.bind(1, at: 3) }
        #expect(throws: SQLiteError.self) {
            try test.db.execute("INSERT INTO notes (id, body) VALUES (?, ?)", binding: 11)
        }
    }

    /// Rows read by index and by case-insensitive column name; unknown names throw.
    @Test func rowsReadByIndexAndName() throws {
        let test = try makeNotes()
        let row = try #require(
            try test.db.fetchOne("SELECT id, body AS Text, rank FROM notes WHERE id = 2") { row in
                (
                    try row[0] as Int, try row["text"] as String, try row["RANK"] as Double, row.count, row.columnName(at: 1),
                    row.isNull(at: 2), try row.value(named: "id")
                )
            })
        #expect(row.0 == 2)
        #expect(row.1 == "two")
        #expect(row.2 == 2.0)
        #expect(row.3 == 3)
        #expect(row.4 == "Text")
        #expect(row.5 == false)
        #expect(row.6 == .integer(2))
        let error = try #require(throws: SQLiteError.self) {
            try test.db.fetchOne("SELECT id FROM notes") { row in try row["nope"] as Int }
        }
        #expect(error.message.contains("nope"))
    }

    /// forEachRow visits every row in order; fetchOne returns nil for no row.
    @Test func forEachRowAndFetchOne() throws {
        let test = try makeNotes()
        var bodies: [String] = []
        try test.db.forEachRow("SELECT body FROM notes WHERE id >= ? ORDER BY id", [2]) { row in
            bodies.append(try row[0])
        }
        #expect(bodies == ["two", "three"])
        #expect(try test.db.fetchOne(String.self, "SELECT body FROM notes WHERE id = 99") == nil)
        #expect(try test.db.fetchOne("SELECT body FROM notes WHERE id = 99") { _ in 1 } == nil)
    }

    /// Blob and text bytes can be read in place.
    @Test func bytesCanBeReadWithoutCopying() throws {
        let test = try makeNotes()
        let sum = try test.db.fetchOne("SELECT X'010203', 'ab', NULL, X''") { row in
            (
                row.withUnsafeBytes(at: 0) { $0.reduce(0) { $0 + Int($1) } },
                row.withUnsafeBytes(at: 1) { Array($0) },
                row.withUnsafeBytes(at: 2) { $0.count },
                row.withUnsafeBytes(at: 3) { $0.count }
            )
        }
        #expect(sum?.0 == 6)
        #expect(sum?.1 == Array("ab".utf8))
        #expect(sum?.2 == 0)
        #expect(sum?.3 == 0)
    }

    /// The statement cache returns the same prepared statement for the same SQL.
    @Test func cachedStatementsAreReused() throws {
        let test = try makeNotes()
        let first = try test.db.cachedStatement(sql: "SELECT count(*) FROM notes")
        let second = try test.db.cachedStatement(sql: "SELECT count(*) FROM notes")
        #expect(first === second)
        #expect(try test.db.prepare("SELECT count(*) FROM notes") !== first)
        #expect(first.columnNames == ["count(*)"])
        #expect(first.isReadOnly)
    }

    /// Running the same cached SQL inside a loop over it does not disturb the loop.
    @Test func nestedUseOfTheSameSQLIsSafe() throws {
        let test = try makeNotes()
        let sql = "SELECT id FROM notes ORDER BY id"
        var pairs: [(Int, Int)] = []
        try test.db.forEachRow(sql) { outer in
            let id: Int = try outer[0]
            for inner in try test.db.fetchAll(Int.self, sql) {
                pairs.append((id, inner))
            }
        }
        #expect(pairs.count == 9)
    }

    /// A statement runs again after it is reset, with new bindings.
    @Test func statementsRunRepeatedly() throws {
        let test = try makeNotes()
        let insert = try test.db.cachedStatement(sql: "INSERT INTO notes (body) VALUES (?)")
        for index in 0..<100 {
            try insert.execute(binding: "note \(index)")
        }
        #expect(try test.db.fetchOne(Int.self, "SELECT count(*) FROM notes") == 103)
        try insert.bind(values: "manual")
        #expect(try insert.step() == false)
        insert.reset()
        #expect(test.db.lastInsertRowID == 104)
    }

    /// changes, totalChanges and lastInsertRowID follow the statements run.
    @Test func changeCountersFollowStatements() throws {
        let test = try makeNotes()
        let before = test.db.totalChanges
        try test.db.execute("UPDATE notes SET rank = 0")
        #expect(test.db.changes == 3)
        #expect(test.db.totalChanges == before + 3)
        try test.db.execute("INSERT INTO notes (body) VALUES ('four')")
        #expect(test.db.lastInsertRowID == 4)
    }

    /// Multiple statements in a single-statement call are refused, not silently truncated.
    @Test func multipleStatementsAreRefused() throws {
        let test = try makeNotes()
        let error = try #require(throws: SQLiteError.self) {
            try test.db.execute("DELETE FROM notes; DROP TABLE notes")
        }
        #expect(error.code == .misuse)
        #expect(try test.db.fetchOne(Int.self, "SELECT count(*) FROM notes") == 3)
        #expect(throws: SQLiteError.self) { try test.db.prepare("  -- nothing here\n") }
        try test.db.execute("SELECT 1; -- trailing comment")
    }

    /// Double-quoted strings are identifiers only, and foreign keys are enforced by default.
    @Test func connectionsAreSetUpStrictly() throws {
        let test = try makeNotes()
        #expect(throws: SQLiteError.self) { try test.db.fetchAll(String.self, "SELECT \"no_such_column\" FROM notes") }
        #expect(try test.db.fetchOne(Bool.self, "PRAGMA foreign_keys") == true)
        #expect(try test.db.fetchOne(String.self, "PRAGMA journal_mode") == "wal")
        #expect(try test.db.fetchOne(Int.self, "PRAGMA synchronous") == 1)
        #expect(try test.db.tableExists("notes"))
        #expect(try !test.db.tableExists("nope"))
    }

    /// Configuration pragmas and the prepareConnection hook are applied.
    @Test func configurationIsApplied() throws {
        let test = try TestConnection { configuration in
            configuration.foreignKeys = false
            configuration.synchronous = .full
            configuration.cacheSizeKiB = 8192
            configuration.mmapSize = 1 << 20
            configuration.journalMode = .delete
            configuration.prepareConnection = { db in try db.execute(sql: "PRAGMA user_version = 7") }
        }
        #expect(try test.db.fetchOne(Bool.self, "PRAGMA foreign_keys") == false)
        #expect(try test.db.fetchOne(Int.self, "PRAGMA synchronous") == 2)
        #expect(try test.db.fetchOne(Int.self, "PRAGMA cache_size") == -8192)
        #expect(try test.db.fetchOne(Int.self, "PRAGMA mmap_size") == 1 << 20)
        #expect(try test.db.fetchOne(String.self, "PRAGMA journal_mode") == "delete")
        #expect(try test.db.fetchOne(Int.self, "PRAGMA user_version") == 7)
    }

    /// Closing twice is harmless, and the connection reports it is closed.
    @Test func closeIsIdempotent() throws {
        let test = try TestConnection()
        let kept = try test.db.prepare("SELECT 1")
        try test.db.close()
        try test.db.close()
        #expect(test.db.isClosed)
        _ = kept
    }

    /// A tiny statement cache still works: it is emptied when full.
    @Test func fullStatementCacheIsEmptied() throws {
        let test = try TestConnection { $0.statementCacheCapacity = 2 }
        for index in 0..<10 {
            #expect(try test.db.fetchOne(Int.self, "SELECT \(index)") == index)
        }
        let statement = try test.db.cachedStatement(sql: "SELECT 42")
        test.db.clearStatementCache()
        #expect(try statement.fetchOne(Int.self) == 42)
    }
}
