public import StratusSQL

/// The web console's tables (administrators, their sessions, the audit log), the same on both
/// back ends but for column types; each back end registers them under its own migration identifier
/// (Documentation/0022-console.md).
public enum SQLConsoleSchema {
    /// The script that creates the tables.
    ///
    /// - Parameter dialect: The back end's dialect.
    /// - Returns: Statements separated by `;`, without parameters.
    public static func tables(_ dialect: SQLDialect) -> String {
        let types = SQLColumnTypes(dialect)
        return """
            -- Console administrators: not app users; the address is stored lowercased.
            CREATE TABLE console_admins (
                id TEXT PRIMARY KEY NOT NULL,
                email TEXT NOT NULL UNIQUE,
                password_hash TEXT NOT NULL,
                created_at \(types.integer) NOT NULL
            )\(types.withoutRowID);

            -- Console sessions by the SHA-256 of the cookie's token.
            CREATE TABLE console_sessions (
                token_hash TEXT PRIMARY KEY NOT NULL,
                admin_id TEXT NOT NULL,
                csrf_token TEXT NOT NULL,
                created_at \(types.integer) NOT NULL,
                expires_at \(types.integer) NOT NULL,
                revoked_at \(types.integer)
            )\(types.withoutRowID);
            CREATE INDEX console_sessions_by_admin ON console_sessions (admin_id);

            -- Every change made through the console: who, what, when.
            CREATE TABLE console_audit (
                sequence \(types.identityKey),
                at \(types.integer) NOT NULL,
                administrator TEXT NOT NULL,
                action TEXT NOT NULL,
                target TEXT NOT NULL,
                detail TEXT NOT NULL
            );
            """
    }

    /// The audit log's `outcome` column (`started`, `done`, `failed`): entries are written before
    /// their change and concluded after it; entries written before the column existed were all
    /// written after their change committed, so they read as `done`.
    ///
    /// - Returns: One statement, the same on both back ends.
    public static func auditOutcome() -> String {
        "ALTER TABLE console_audit ADD COLUMN outcome TEXT NOT NULL DEFAULT 'done'"
    }
}
