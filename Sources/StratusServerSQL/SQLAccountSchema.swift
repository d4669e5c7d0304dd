public import StratusSQL

/// The account tables (users, web auth sessions, API tokens, server-to-server keys), the same
/// on both back ends but for column types; each back end registers them under its own migration
/// identifiers.
public enum SQLAccountSchema {
    /// The script that creates the tables.
    ///
    /// - Parameter dialect: The back end's dialect.
    /// - Returns: Statements separated by `;`, without parameters.
    public static func tables(_ dialect: SQLDialect) -> String {
        let types = SQLColumnTypes(dialect)
        return """
            -- People who sign in; the e-mail address is stored lowercased.
            CREATE TABLE users (
                record_name TEXT PRIMARY KEY NOT NULL,
                email TEXT NOT NULL UNIQUE,
                name_components \(types.blob) NOT NULL,
                discoverable \(types.boolean) NOT NULL DEFAULT \(types.falseLiteral),
                password_hash TEXT,
                created_at \(types.integer) NOT NULL
            )\(types.withoutRowID);

            -- Web auth sessions; their tokens are sealed, never stored.
            CREATE TABLE web_auth_sessions (
                id TEXT PRIMARY KEY NOT NULL,
                user_record_name TEXT NOT NULL,
                container TEXT NOT NULL,
                keep_signed_in \(types.boolean) NOT NULL,
                created_at \(types.integer) NOT NULL,
                newest_token_used_at \(types.integer) NOT NULL,
                revoked_at \(types.integer)
            )\(types.withoutRowID);
            CREATE INDEX web_auth_sessions_by_user ON web_auth_sessions (user_record_name);

            -- API tokens by the SHA-256 of the token.
            CREATE TABLE api_tokens (
                token_hash TEXT PRIMARY KEY NOT NULL,
                prefix TEXT NOT NULL,
                container TEXT NOT NULL,
                environment TEXT NOT NULL,
                name TEXT NOT NULL,
                sign_in_callback_url TEXT,
                allowed_origins TEXT NOT NULL,
                created_at \(types.integer) NOT NULL,
                revoked_at \(types.integer)
            )\(types.withoutRowID);
            CREATE INDEX api_tokens_by_container ON api_tokens (container, environment);

            -- Server-to-server public keys.
            CREATE TABLE server_keys (
                key_id TEXT PRIMARY KEY NOT NULL,
                container TEXT NOT NULL,
                environment TEXT NOT NULL,
                name TEXT NOT NULL,
                public_key_pem TEXT NOT NULL,
                created_at \(types.integer) NOT NULL,
                revoked_at \(types.integer)
            )\(types.withoutRowID);
            CREATE INDEX server_keys_by_container ON server_keys (container, environment);
            """
    }

    /// When the owner of the address proved it; NULL for accounts made before verification existed.
    ///
    /// - Parameter dialect: The back end's dialect.
    /// - Returns: The `ALTER TABLE` statement.
    public static func emailVerifiedColumn(_ dialect: SQLDialect) -> String {
        "ALTER TABLE users ADD COLUMN email_verified_at \(SQLColumnTypes(dialect).integer)"
    }

    /// When an administrator disabled the account; NULL while it is enabled.
    ///
    /// - Parameter dialect: The back end's dialect.
    /// - Returns: The `ALTER TABLE` statement.
    public static func disabledColumn(_ dialect: SQLDialect) -> String {
        "ALTER TABLE users ADD COLUMN disabled_at \(SQLColumnTypes(dialect).integer)"
    }
}
