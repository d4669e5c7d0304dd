import StratusSQLite
import Testing

@Suite struct SQLiteErrorTests {
    /// A syntax error carries the SQL, SQLite's message and the primary code.
    @Test func syntaxErrorCarriesSQLAndMessage() throws {
        let test = try TestConnection()
        let error = try #require(throws: SQLiteError.self) { try test.db.execute("SELEC 1") }
        #expect(error.code == .error)
        #expect(error.message.contains("syntax error"))
        #expect(error.sql == "SELEC 1")
        #expect(error.operation == "prepare")
        #expect(error.description.contains("SELEC 1"))
        #expect(error.description.contains("SQLITE_ERROR"))
        #expect(error.description.contains("syntax error"))
    }

    /// A syntax error in a script names the script.
    @Test func scriptErrorCarriesSQL() throws {
        let test = try TestConnection()
        let error = try #require(throws: SQLiteError.self) {
            try test.db.execute(sql: "CREATE TABLE a (x); CREATE TABLE b (y")
        }
        #expect(error.sql?.contains("CREATE TABLE b") == true)
        #expect(try test.db.tableExists("a"))
    }

    /// A UNIQUE violation has the extended code constraintUnique, in the constraint family, with the SQL.
    @Test func uniqueViolationHasExtendedCode() throws {
        let test = try TestConnection()
        try test.db.execute(sql: "CREATE TABLE t (name TEXT UNIQUE)")
        let insert = "INSERT INTO t (name) VALUES (?)"
        try test.db.execute(insert, ["a"])
        let error = try #require(throws: SQLiteError.self) { try test.db.execute(insert, ["a"]) }
        #expect(error.code == .constraintUnique)
        #expect(error.resultCode == .constraint)
        #expect(error.code.primary == .constraint)
        #expect(error.sql == insert)
        #expect(error.message.contains("UNIQUE constraint failed: t.name"))
        #expect(error.description.contains("SQLITE_CONSTRAINT_UNIQUE (2067)"))
        #expect(!error.description.contains("'a'"), "arguments must not leak into descriptions")
        switch error.code {
        case .constraintForeignKey: Issue.record("an extended code matches only itself")
        case .constraint: break
        default: Issue.record("a primary code matches its extended codes")
        }
        // The statement is reusable after the failure.
        try test.db.execute(insert, ["b"])
    }

    /// Foreign key and NOT NULL violations have their own extended codes.
    @Test func otherConstraintViolationsHaveExtendedCodes() throws {
        let test = try TestConnection()
        try test.db.execute(
            sql: """
                CREATE TABLE parent (id INTEGER PRIMARY KEY);
                CREATE TABLE child (id INTEGER PRIMARY KEY, parent INTEGER NOT NULL REFERENCES parent(id));
                """)
        let foreignKey = try #require(throws: SQLiteError.self) {
            try test.db.execute("INSERT INTO child (parent) VALUES (?)", [42])
        }
        #expect(foreignKey.code == .constraintForeignKey)
        let notNull = try #require(throws: SQLiteError.self) {
            try test.db.execute("INSERT INTO child (parent) VALUES (?)", [nil])
        }
        #expect(notNull.code == .constraintNotNull)
        try test.db.execute("INSERT INTO parent (id) VALUES (1)")
        let primaryKey = try #require(throws: SQLiteError.self) {
            try test.db.execute("INSERT INTO parent (id) VALUES (1)")
        }
        #expect(primaryKey.code == .constraintPrimaryKey)
    }

    /// Opening a file that cannot exist fails with cantOpen and names the path.
    @Test func openFailureNamesThePath() throws {
        let error = try #require(throws: SQLiteError.self) {
            try SQLiteConnection(path: "/nonexistent-directory/x/db.sqlite")
        }
        #expect(error.code.primary == .cantOpen)
        #expect(error.operation?.contains("/nonexistent-directory/x/db.sqlite") == true)
    }

    /// Writing through a read-only connection fails with readOnly.
    @Test func writingReadOnlyConnectionFails() throws {
        let test = try TestConnection()
        try test.db.execute(sql: "CREATE TABLE t (x)")
        let reader = try SQLiteConnection(path: test.db.path, readOnly: true)
        let error = try #require(throws: SQLiteError.self) { try reader.execute("INSERT INTO t VALUES (1)") }
        #expect(error.code.primary == .readOnly)
        try reader.close()
    }

    /// Unknown codes are kept and described by number.
    @Test func unknownCodesAreKept() {
        let code = SQLiteError.Code(rawValue: 19 | 99 << 8)
        #expect(code.primary == .constraint)
        #expect(!code.isPrimary)
        #expect(code.description.contains("SQLITE_CONSTRAINT"))
        #expect(SQLiteError.Code(rawValue: 9999).description.contains("9999"))
    }
}
