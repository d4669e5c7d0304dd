public import StratusServer
public import StratusSQL

/// The console's primitives (``ConsoleStoreWriter``) on one SQL connection inside one
/// transaction, for either back end.
///
/// Confined to the connection's thread for the life of one `readConsole` or `writeConsole`.
///
/// ```swift
/// import StratusServer
/// import StratusSQLite
///
/// func administrators(in db: SQLiteConnection) throws -> [ConsoleAdministrator] {
///     try SQLConsoleTransaction(db).administrators()
/// }
/// ```
public final class SQLConsoleTransaction: ConsoleStoreWriter {
    private let db: any SQLExecutor

    /// Wraps a connection on which a transaction is open.
    ///
    /// - Parameter db: The connection.
    public init(_ db: any SQLExecutor) {
        self.db = db
    }

    private static let adminColumns: SQL = "id, email, password_hash, created_at"

    private static func administrator(_ row: any SQLRow) throws -> ConsoleAdministrator {
        ConsoleAdministrator(id: try row[0], emailAddress: try row[1], passwordHash: try row[2], createdAt: try row[3])
    }

    /// The administrator with this (lowercased) e-mail address.
    public func administrator(emailAddress: String) throws -> ConsoleAdministrator? {
        try db.fetchOne(literal: "SELECT \(Self.adminColumns) FROM console_admins WHERE email = \(emailAddress)", Self.administrator)
    }

    /// The administrator with this ID.
    public func administrator(id: String) throws -> ConsoleAdministrator? {
        try db.fetchOne(literal: "SELECT \(Self.adminColumns) FROM console_admins WHERE id = \(id)", Self.administrator)
    }

    /// Every administrator, by e-mail address.
    public func administrators() throws -> [ConsoleAdministrator] {
        try db.fetchAll(literal: "SELECT \(Self.adminColumns) FROM console_admins ORDER BY email", Self.administrator)
    }

    /// The session whose token has this SHA-256, revoked or not.
    public func consoleSession(tokenHash: String) throws -> ConsoleSession? {
        try db.fetchOne(
            literal: """
                SELECT token_hash, admin_id, csrf_token, created_at, expires_at, revoked_at FROM console_sessions
                WHERE token_hash = \(tokenHash)
                """
        ) { row in
            ConsoleSession(
                tokenHash: try row[0], administratorID: try row[1], csrfToken: try row[2], createdAt: try row[3],
                expiresAt: try row[4], revokedAt: try row[5]
            )
        }
    }

    /// The newest audit entries first.
    public func auditEntries(limit: Int, before: Int64?) throws -> [ConsoleAuditEntry] {
        let bound = before ?? Int64.max
        return try db.fetchAll(
            literal: """
                SELECT sequence, at, administrator, action, target, detail, outcome FROM console_audit
                WHERE sequence < \(bound) ORDER BY sequence DESC LIMIT \(limit)
                """
        ) { row in
            let outcome: String = try row[6]
            return ConsoleAuditEntry(
                sequence: try row[0], at: try row[1], administrator: try row[2], action: try row[3], target: try row[4], detail: try row[5],
                outcome: ConsoleAuditEntry.Outcome(rawValue: outcome) ?? .started  // only this type writes it; unknown reads as unconcluded
            )
        }
    }

    /// Inserts an administrator unless the ID or address is taken.
    public func insertAdministrator(_ administrator: ConsoleAdministrator) throws -> Bool {
        let inserted = try db.execute(
            literal: """
                INSERT INTO console_admins (id, email, password_hash, created_at)
                VALUES (\(administrator.id), \(administrator.emailAddress), \(administrator.passwordHash), \(administrator.createdAt))
                ON CONFLICT DO NOTHING
                """
        )
        return inserted == 1
    }

    /// Deletes an administrator and their sessions.
    public func deleteAdministrator(id: String) throws -> Bool {
        _ = try db.execute(literal: "DELETE FROM console_sessions WHERE admin_id = \(id)")
        return try db.execute(literal: "DELETE FROM console_admins WHERE id = \(id)") == 1
    }

    /// Inserts a session.
    public func insertConsoleSession(_ session: ConsoleSession) throws {
        _ = try db.execute(
            literal: """
                INSERT INTO console_sessions (token_hash, admin_id, csrf_token, created_at, expires_at, revoked_at)
                VALUES (\(session.tokenHash), \(session.administratorID), \(session.csrfToken), \(session.createdAt),
                    \(session.expiresAt), \(session.revokedAt))
                """
        )
    }

    /// Signs a live session out.
    public func revokeConsoleSession(tokenHash: String, at time: Int64) throws -> Bool {
        try db.execute(
            literal: "UPDATE console_sessions SET revoked_at = \(time) WHERE token_hash = \(tokenHash) AND revoked_at IS NULL"
        ) == 1
    }

    /// Deletes the sessions that expired at or before `time`; returns how many.
    public func deleteExpiredConsoleSessions(at time: Int64) throws -> Int {
        try db.execute(literal: "DELETE FROM console_sessions WHERE expires_at <= \(time)")
    }

    /// Appends an audit entry.
    public func appendAudit(_ entry: ConsoleAuditEntry) throws -> Int64 {
        let sequence = try db.fetchOne(
            literal: """
                INSERT INTO console_audit (at, administrator, action, target, detail, outcome)
                VALUES (\(entry.at), \(entry.administrator), \(entry.action), \(entry.target), \(entry.detail), \(entry.outcome.rawValue))
                RETURNING sequence
                """
        ) { row -> Int64 in try row[0] }
        return sequence ?? 0
    }

    /// Concludes a `started` entry.
    public func concludeAudit(sequence: Int64, outcome: ConsoleAuditEntry.Outcome, target: String, detail: String) throws -> Bool {
        try db.execute(
            literal: """
                UPDATE console_audit SET outcome = \(outcome.rawValue), target = \(target), detail = \(detail)
                WHERE sequence = \(sequence) AND outcome = \(ConsoleAuditEntry.Outcome.started.rawValue)
                """
        ) == 1
    }
}
