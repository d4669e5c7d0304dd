import Foundation
public import StratusServer
import StratusSQLite
import StratusWire

/// Accounts, sessions, API tokens and server-to-server keys in the same SQLite file as the records.
///
/// Reads use the reader pool; writes take the writer connection in their own
/// transaction, serialized with record writes.
extension SQLiteRecordStore: AccountStore {
    /// Runs `body` in a read snapshot on a reader connection.
    public func readAccounts<T: Sendable>(_ body: @escaping @Sendable (any AccountStoreReader) throws -> T) async throws -> T {
        try await pool.read { db in try body(SQLiteAccountTransaction(db)) }
    }

    /// Runs `body` in an immediate transaction on the writer connection.
    public func writeAccounts<T: Sendable>(_ body: @escaping @Sendable (any AccountStoreWriter) throws -> T) async throws -> T {
        try await pool.write { db in try body(SQLiteAccountTransaction(db)) }
    }
}

/// The account tables, added by a migration after the record tables.
enum SQLiteAccountSchema {
    static func register(in migrator: inout SQLiteMigrator) {
        migrator.registerMigration("v4-accounts-sessions-tokens-keys") { db in
            try db.execute(sql: """
                -- People who sign in; the e-mail address is stored lowercased.
                CREATE TABLE users (
                    record_name TEXT PRIMARY KEY NOT NULL,
                    email TEXT NOT NULL UNIQUE,
                    name_components BLOB NOT NULL,
                    discoverable INTEGER NOT NULL DEFAULT 0,
                    password_hash TEXT,
                    created_at INTEGER NOT NULL
                ) WITHOUT ROWID;

                -- Web auth sessions; their tokens are sealed, never stored.
                CREATE TABLE web_auth_sessions (
                    id TEXT PRIMARY KEY NOT NULL,
                    user_record_name TEXT NOT NULL,
                    container TEXT NOT NULL,
                    keep_signed_in INTEGER NOT NULL,
                    created_at INTEGER NOT NULL,
                    newest_token_used_at INTEGER NOT NULL,
                    revoked_at INTEGER
                ) WITHOUT ROWID;
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
                    created_at INTEGER NOT NULL,
                    revoked_at INTEGER
                ) WITHOUT ROWID;
                CREATE INDEX api_tokens_by_container ON api_tokens (container, environment);

                -- Server-to-server public keys.
                CREATE TABLE server_keys (
                    key_id TEXT PRIMARY KEY NOT NULL,
                    container TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    name TEXT NOT NULL,
                    public_key_pem TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    revoked_at INTEGER
                ) WITHOUT ROWID;
                CREATE INDEX server_keys_by_container ON server_keys (container, environment);
                """)
        }
        migrator.registerMigration("auth-v3-email-verified") { db in
            // When the owner of the address proved it; NULL for accounts made before verification existed.
            try db.execute(sql: "ALTER TABLE users ADD COLUMN email_verified_at INTEGER")
        }
    }
}

/// The account primitives on one SQLite connection inside one transaction.
///
/// Confined to the connection's queue for the life of one `readAccounts` or `writeAccounts`.
final class SQLiteAccountTransaction: AccountStoreWriter {
    private let db: SQLiteConnection

    init(_ db: SQLiteConnection) {
        self.db = db
    }

    // MARK: Users

    private static let userColumns = "record_name, email, name_components, discoverable, password_hash, created_at, email_verified_at"

    private static func user(_ row: SQLiteRow) throws -> UserAccount {
        let names: Data = try row[2]
        return UserAccount(
            userRecordName: try row[0], emailAddress: try row[1],
            nameComponents: try JSONDecoder().decode(NameComponents.self, from: names), isDiscoverable: try row[3],
            passwordHash: try row[4], createdAt: try row[5], emailVerifiedAt: try row[6]
        )
    }

    private static func encode(_ names: NameComponents) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try encoder.encode(names)
    }

    func user(recordName: String) throws -> UserAccount? {
        try db.fetchOne("SELECT \(Self.userColumns) FROM users WHERE record_name = ?", [recordName], Self.user)
    }

    func user(emailAddress: String) throws -> UserAccount? {
        try db.fetchOne("SELECT \(Self.userColumns) FROM users WHERE email = ?", [emailAddress], Self.user)
    }

    func users() throws -> [UserAccount] {
        try db.fetchAll("SELECT \(Self.userColumns) FROM users ORDER BY email", [], Self.user)
    }

    func insertUser(_ user: UserAccount) throws -> Bool {
        try db.execute(
            "INSERT OR IGNORE INTO users (\(Self.userColumns)) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                user.userRecordName, user.emailAddress, try Self.encode(user.nameComponents), user.isDiscoverable, user.passwordHash, user.createdAt,
                user.emailVerifiedAt,
            ]
        )
        return db.changes == 1
    }

    func updateUser(_ user: UserAccount) throws {
        try db.execute(
            "UPDATE users SET name_components = ?, discoverable = ?, password_hash = ?, email_verified_at = ? WHERE record_name = ?",
            [try Self.encode(user.nameComponents), user.isDiscoverable, user.passwordHash, user.emailVerifiedAt, user.userRecordName]
        )
    }

    // MARK: Sessions

    private static let sessionColumns = "id, user_record_name, container, keep_signed_in, created_at, newest_token_used_at, revoked_at"

    func session(id: String) throws -> WebAuthSession? {
        try db.fetchOne("SELECT \(Self.sessionColumns) FROM web_auth_sessions WHERE id = ?", [id]) { row in
            WebAuthSession(
                sessionID: try row[0], userRecordName: try row[1], container: try row[2], keepSignedIn: try row[3],
                createdAt: try row[4], newestTokenUsedAt: try row[5], revokedAt: try row[6]
            )
        }
    }

    func insertSession(_ session: WebAuthSession) throws {
        try db.execute(
            "INSERT INTO web_auth_sessions (\(Self.sessionColumns)) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                session.sessionID, session.userRecordName, session.container, session.keepSignedIn, session.createdAt,
                session.newestTokenUsedAt, session.revokedAt,
            ]
        )
    }

    func noteTokenUse(sessionID: String, issuedAt: Int64) throws {
        try db.execute(
            "UPDATE web_auth_sessions SET newest_token_used_at = ? WHERE id = ? AND newest_token_used_at < ?",
            [issuedAt, sessionID, issuedAt]
        )
    }

    func revokeSession(id: String, at time: Int64) throws {
        try db.execute("UPDATE web_auth_sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", [time, id])
    }

    func revokeSessions(ofUser userRecordName: String, at time: Int64) throws {
        try db.execute(
            "UPDATE web_auth_sessions SET revoked_at = ? WHERE user_record_name = ? AND revoked_at IS NULL", [time, userRecordName]
        )
    }

    // MARK: API tokens

    private static let tokenColumns =
        "token_hash, prefix, container, environment, name, sign_in_callback_url, allowed_origins, created_at, revoked_at"

    private static func token(_ row: SQLiteRow) throws -> APITokenRecord {
        let environment: String = try row[3]
        guard let environmentValue = Environment(rawValue: environment) else {
            throw SQLiteStoreCorruption(message: "API token \(try row[1] as String)… has environment '\(environment)'")
        }
        let origins: String = try row[6]
        return APITokenRecord(
            tokenHash: try row[0], prefix: try row[1], container: try row[2], environment: environmentValue, name: try row[4],
            signInCallbackURL: try row[5], allowedOrigins: origins.split(separator: "\n").map(String.init),
            createdAt: try row[7], revokedAt: try row[8]
        )
    }

    func apiToken(hash: String) throws -> APITokenRecord? {
        try db.fetchOne("SELECT \(Self.tokenColumns) FROM api_tokens WHERE token_hash = ?", [hash], Self.token)
    }

    func apiTokens(container: String?) throws -> [APITokenRecord] {
        guard let container else {
            return try db.fetchAll("SELECT \(Self.tokenColumns) FROM api_tokens ORDER BY created_at DESC, prefix", [], Self.token)
        }
        return try db.fetchAll(
            "SELECT \(Self.tokenColumns) FROM api_tokens WHERE container = ? ORDER BY created_at DESC, prefix", [container], Self.token
        )
    }

    func insertAPIToken(_ token: APITokenRecord) throws {
        try db.execute(
            "INSERT INTO api_tokens (\(Self.tokenColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                token.tokenHash, token.prefix, token.container, token.environment.rawValue, token.name, token.signInCallbackURL,
                token.allowedOrigins.joined(separator: "\n"), token.createdAt, token.revokedAt,
            ]
        )
    }

    func revokeAPIToken(hash: String, at time: Int64) throws -> Bool {
        try db.execute("UPDATE api_tokens SET revoked_at = ? WHERE token_hash = ? AND revoked_at IS NULL", [time, hash])
        return db.changes == 1
    }

    // MARK: Server-to-server keys

    private static let keyColumns = "key_id, container, environment, name, public_key_pem, created_at, revoked_at"

    private static func key(_ row: SQLiteRow) throws -> ServerKeyRecord {
        let environment: String = try row[2]
        guard let environmentValue = Environment(rawValue: environment) else {
            throw SQLiteStoreCorruption(message: "server key \(try row[0] as String) has environment '\(environment)'")
        }
        return ServerKeyRecord(
            keyID: try row[0], container: try row[1], environment: environmentValue, name: try row[3], publicKeyPEM: try row[4],
            createdAt: try row[5], revokedAt: try row[6]
        )
    }

    func serverKey(id: String) throws -> ServerKeyRecord? {
        try db.fetchOne("SELECT \(Self.keyColumns) FROM server_keys WHERE key_id = ?", [id], Self.key)
    }

    func serverKeys(container: String?) throws -> [ServerKeyRecord] {
        guard let container else {
            return try db.fetchAll("SELECT \(Self.keyColumns) FROM server_keys ORDER BY created_at DESC, key_id", [], Self.key)
        }
        return try db.fetchAll(
            "SELECT \(Self.keyColumns) FROM server_keys WHERE container = ? ORDER BY created_at DESC, key_id", [container], Self.key
        )
    }

    func insertServerKey(_ key: ServerKeyRecord) throws {
        try db.execute(
            "INSERT INTO server_keys (\(Self.keyColumns)) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [key.keyID, key.container, key.environment.rawValue, key.name, key.publicKeyPEM, key.createdAt, key.revokedAt]
        )
    }

    func revokeServerKey(id: String, at time: Int64) throws -> Bool {
        try db.execute("UPDATE server_keys SET revoked_at = ? WHERE key_id = ? AND revoked_at IS NULL", [time, id])
        return db.changes == 1
    }
}
