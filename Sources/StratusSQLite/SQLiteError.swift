/// An error reported by SQLite, with the result code, SQLite's message and the SQL that failed.
///
/// The ``code`` is the *extended* result code (extended codes are always turned on),
/// so a `UNIQUE` violation is ``Code/constraintUnique``, and ``Code/primary`` gives the
/// family (``Code/constraint``). A primary code used as a pattern matches every
/// extended code of its family:
///
/// ```swift
/// do {
///     try db.execute("INSERT INTO records (zone, name) VALUES (?, ?)", [zone, name])
/// } catch let error as SQLiteError where error.code == .constraintUnique {
///     // the record exists
/// } catch let error as SQLiteError {
///     switch error.code {
///     case .busy: retryLater()        // matches busyRecovery, busySnapshot, …
///     case .constraint: reject(error) // any other constraint
///     default: throw error
///     }
/// }
/// ```
///
/// Statement arguments are never part of the error, so that descriptions can be
/// logged without leaking user data.
///
/// Related SQLite documentation: <https://www.sqlite.org/rescode.html>
public struct SQLiteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The extended result code, such as ``Code/constraintUnique``.
    public var code: Code
    /// SQLite's explanation (`sqlite3_errmsg`), or ours for errors raised by this wrapper.
    public var message: String
    /// The SQL statement that failed, if the failure concerns one.
    public var sql: String?
    /// What the wrapper was doing, such as `"open"`, `"prepare"`, `"step"` or `"bind"`.
    public var operation: String?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: The (extended) result code.
    ///   - message: What went wrong.
    ///   - sql: The statement that failed, if any.
    ///   - operation: What the wrapper was doing.
    public init(code: Code, message: String, sql: String? = nil, operation: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
        self.operation = operation
    }

    /// The primary result code, such as ``Code/constraint`` for ``Code/constraintUnique``.
    public var resultCode: Code { code.primary }

    /// A one-line description naming the code, the message, the operation and the SQL.
    ///
    /// For example: `SQLITE_CONSTRAINT_UNIQUE (2067): UNIQUE constraint failed: t.a
    /// [step] in "INSERT INTO t(a) VALUES (?)"`.
    public var description: String {
        var text = "\(code): \(message)"
        if let operation {
            text += " [\(operation)]"
        }
        if let sql {
            text += " in \"\(sql)\""
        }
        return text
    }
}

extension SQLiteError {
    /// An SQLite result code, primary or extended; open to codes this wrapper does not name.
    ///
    /// The low byte is the primary code; extended codes add detail in the higher bits
    /// (`constraintUnique = constraint | 8 << 8`). `==` compares exactly; `~=` (used by
    /// `switch` and `case`) lets a primary code match all of its extended codes.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/rescode.html>
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The numeric code, as SQLite returns it.
        public var rawValue: Int32

        /// Wraps a numeric result code.
        ///
        /// - Parameter rawValue: The code returned by SQLite.
        public init(rawValue: Int32) {
            self.rawValue = rawValue
        }

        /// The primary code: the low eight bits.
        public var primary: Code { Code(rawValue: rawValue & 0xFF) }

        /// Whether this code is primary (has no extended bits).
        public var isPrimary: Bool { rawValue & ~0xFF == 0 }

        /// Matches `code` against `pattern`: a primary pattern matches its whole family.
        ///
        /// - Parameters:
        ///   - pattern: The code written in the `case`.
        ///   - code: The code being tested.
        /// - Returns: Whether they match.
        public static func ~= (pattern: Code, code: Code) -> Bool {
            pattern.isPrimary ? pattern == code.primary : pattern == code
        }

        /// The C name and number, such as `SQLITE_CONSTRAINT_UNIQUE (2067)`.
        public var description: String {
            if let name = Code.names[rawValue] {
                return "\(name) (\(rawValue))"
            }
            if let name = Code.names[rawValue & 0xFF] {
                return "\(name) (\(rawValue), extended)"
            }
            return "SQLite result code \(rawValue)"
        }

        // MARK: Primary result codes

        /// `SQLITE_OK`: success.
        public static let ok = Code(rawValue: 0)
        /// `SQLITE_ERROR`: a generic error, such as an SQL syntax error or a missing table.
        public static let error = Code(rawValue: 1)
        /// `SQLITE_INTERNAL`: an internal malfunction of SQLite.
        public static let `internal` = Code(rawValue: 2)
        /// `SQLITE_PERM`: the requested access mode could not be provided.
        public static let permission = Code(rawValue: 3)
        /// `SQLITE_ABORT`: an operation was aborted, for example by a rollback.
        public static let abort = Code(rawValue: 4)
        /// `SQLITE_BUSY`: another connection holds a conflicting lock.
        public static let busy = Code(rawValue: 5)
        /// `SQLITE_LOCKED`: a conflict inside the same connection or shared cache.
        public static let locked = Code(rawValue: 6)
        /// `SQLITE_NOMEM`: out of memory.
        public static let noMemory = Code(rawValue: 7)
        /// `SQLITE_READONLY`: a write on a read-only connection or file.
        public static let readOnly = Code(rawValue: 8)
        /// `SQLITE_INTERRUPT`: interrupted by `sqlite3_interrupt`.
        public static let interrupt = Code(rawValue: 9)
        /// `SQLITE_IOERR`: the operating system reported an I/O error.
        public static let ioError = Code(rawValue: 10)
        /// `SQLITE_CORRUPT`: the database file is malformed.
        public static let corrupt = Code(rawValue: 11)
        /// `SQLITE_NOTFOUND`: an unknown opcode or file-control.
        public static let notFound = Code(rawValue: 12)
        /// `SQLITE_FULL`: the disk is full.
        public static let full = Code(rawValue: 13)
        /// `SQLITE_CANTOPEN`: the file could not be opened.
        public static let cantOpen = Code(rawValue: 14)
        /// `SQLITE_PROTOCOL`: a locking protocol problem (WAL).
        public static let `protocol` = Code(rawValue: 15)
        /// `SQLITE_SCHEMA`: the schema changed.
        public static let schema = Code(rawValue: 17)
        /// `SQLITE_TOOBIG`: a string or blob is too large.
        public static let tooBig = Code(rawValue: 18)
        /// `SQLITE_CONSTRAINT`: a constraint was violated.
        public static let constraint = Code(rawValue: 19)
        /// `SQLITE_MISMATCH`: a datatype mismatch; also raised when a column cannot be read as the requested type.
        public static let mismatch = Code(rawValue: 20)
        /// `SQLITE_MISUSE`: the library was used incorrectly; also raised for empty or multi-statement SQL.
        public static let misuse = Code(rawValue: 21)
        /// `SQLITE_NOLFS`: large files are not supported.
        public static let noLargeFileSupport = Code(rawValue: 22)
        /// `SQLITE_AUTH`: an authorizer denied the statement.
        public static let auth = Code(rawValue: 23)
        /// `SQLITE_RANGE`: a parameter index is out of range, or the argument count is wrong.
        public static let range = Code(rawValue: 25)
        /// `SQLITE_NOTADB`: the file is not a database.
        public static let notADatabase = Code(rawValue: 26)
        /// `SQLITE_ROW`: `sqlite3_step` has a row (not an error).
        public static let row = Code(rawValue: 100)
        /// `SQLITE_DONE`: `sqlite3_step` has finished (not an error).
        public static let done = Code(rawValue: 101)

        // MARK: Extended result codes

        /// `SQLITE_BUSY_RECOVERY`: another connection is recovering a WAL file.
        public static let busyRecovery = Code(rawValue: 5 | 1 << 8)
        /// `SQLITE_BUSY_SNAPSHOT`: a read transaction cannot be upgraded because its snapshot is stale (WAL).
        public static let busySnapshot = Code(rawValue: 5 | 2 << 8)
        /// `SQLITE_BUSY_TIMEOUT`: a blocking lock timed out.
        public static let busyTimeout = Code(rawValue: 5 | 3 << 8)
        /// `SQLITE_READONLY_DBMOVED`: the database file was moved or deleted while open.
        public static let readOnlyDatabaseMoved = Code(rawValue: 8 | 4 << 8)
        /// `SQLITE_IOERR_FSYNC`: `fsync` failed.
        public static let ioErrorFsync = Code(rawValue: 10 | 4 << 8)
        /// `SQLITE_CORRUPT_INDEX`: an index is corrupt.
        public static let corruptIndex = Code(rawValue: 11 | 3 << 8)
        /// `SQLITE_CANTOPEN_ISDIR`: the path is a directory.
        public static let cantOpenIsDirectory = Code(rawValue: 14 | 2 << 8)
        /// `SQLITE_CONSTRAINT_CHECK`: a `CHECK` constraint failed.
        public static let constraintCheck = Code(rawValue: 19 | 1 << 8)
        /// `SQLITE_CONSTRAINT_FOREIGNKEY`: a foreign key constraint failed.
        public static let constraintForeignKey = Code(rawValue: 19 | 3 << 8)
        /// `SQLITE_CONSTRAINT_NOTNULL`: a `NOT NULL` constraint failed.
        public static let constraintNotNull = Code(rawValue: 19 | 5 << 8)
        /// `SQLITE_CONSTRAINT_PRIMARYKEY`: a `PRIMARY KEY` constraint failed.
        public static let constraintPrimaryKey = Code(rawValue: 19 | 6 << 8)
        /// `SQLITE_CONSTRAINT_TRIGGER`: a trigger raised an error with `RAISE`.
        public static let constraintTrigger = Code(rawValue: 19 | 7 << 8)
        /// `SQLITE_CONSTRAINT_UNIQUE`: a `UNIQUE` constraint failed.
        public static let constraintUnique = Code(rawValue: 19 | 8 << 8)
        /// `SQLITE_CONSTRAINT_ROWID`: a rowid is not unique.
        public static let constraintRowID = Code(rawValue: 19 | 10 << 8)

        private static let names: [Int32: String] = [
            0: "SQLITE_OK", 1: "SQLITE_ERROR", 2: "SQLITE_INTERNAL", 3: "SQLITE_PERM", 4: "SQLITE_ABORT",
            5: "SQLITE_BUSY", 6: "SQLITE_LOCKED", 7: "SQLITE_NOMEM", 8: "SQLITE_READONLY",
            9: "SQLITE_INTERRUPT", 10: "SQLITE_IOERR", 11: "SQLITE_CORRUPT", 12: "SQLITE_NOTFOUND",
            13: "SQLITE_FULL", 14: "SQLITE_CANTOPEN", 15: "SQLITE_PROTOCOL", 16: "SQLITE_EMPTY",
            17: "SQLITE_SCHEMA", 18: "SQLITE_TOOBIG", 19: "SQLITE_CONSTRAINT", 20: "SQLITE_MISMATCH",
            21: "SQLITE_MISUSE", 22: "SQLITE_NOLFS", 23: "SQLITE_AUTH", 24: "SQLITE_FORMAT",
            25: "SQLITE_RANGE", 26: "SQLITE_NOTADB", 27: "SQLITE_NOTICE", 28: "SQLITE_WARNING",
            100: "SQLITE_ROW", 101: "SQLITE_DONE",
            busyRecovery.rawValue: "SQLITE_BUSY_RECOVERY", busySnapshot.rawValue: "SQLITE_BUSY_SNAPSHOT",
            busyTimeout.rawValue: "SQLITE_BUSY_TIMEOUT", readOnlyDatabaseMoved.rawValue: "SQLITE_READONLY_DBMOVED",
            ioErrorFsync.rawValue: "SQLITE_IOERR_FSYNC", corruptIndex.rawValue: "SQLITE_CORRUPT_INDEX",
            cantOpenIsDirectory.rawValue: "SQLITE_CANTOPEN_ISDIR",
            constraintCheck.rawValue: "SQLITE_CONSTRAINT_CHECK",
            constraintForeignKey.rawValue: "SQLITE_CONSTRAINT_FOREIGNKEY",
            constraintNotNull.rawValue: "SQLITE_CONSTRAINT_NOTNULL",
            constraintPrimaryKey.rawValue: "SQLITE_CONSTRAINT_PRIMARYKEY",
            constraintTrigger.rawValue: "SQLITE_CONSTRAINT_TRIGGER",
            constraintUnique.rawValue: "SQLITE_CONSTRAINT_UNIQUE",
            constraintRowID.rawValue: "SQLITE_CONSTRAINT_ROWID",
        ]
    }
}
