import Foundation
public import StratusServer
public import StratusSQL
import StratusWire

/// The account primitives on one SQL connection inside one transaction, for either back end.
///
/// Confined to the connection's thread for the life of one `readAccounts` or `writeAccounts`.
///
/// ```swift
/// import StratusServer
/// import StratusSQLite
///
/// func user(named name: String, in db: SQLiteConnection) throws -> UserAccount? {
///     try SQLAccountTransaction(db).user(recordName: name)
/// }
/// ```
public final class SQLAccountTransaction: AccountStoreWriter {
    private let db: any SQLExecutor

    /// Wraps a connection on which a transaction is open.
    ///
    /// - Parameter db: The connection.
    public init(_ db: any SQLExecutor) {
        self.db = db
    }

    private func corruption(_ message: String) -> SQLStoreCorruption {
        SQLStoreCorruption(message: message, dialect: db.dialect)
    }

    // MARK: Users

    private static let userColumns: SQL = "record_name, email, name_components, discoverable, password_hash, created_at, email_verified_at, disabled_at"

    private static func user(_ row: any SQLRow) throws -> UserAccount {
        let names: Data = try row[2]
        return UserAccount(
            userRecordName: try row[0], emailAddress: try row[1],
            nameComponents: try JSONDecoder().decode(NameComponents.self, from: names), isDiscoverable: try row[3],
            passwordHash: try row[4], createdAt: try row[5], emailVerifiedAt: try row[6], disabledAt: try row[7]
        )
    }

    private static func encode(_ names: NameComponents) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try encoder.encode(names)
    }

    /// The user whose record name is `recordName`.
    public func user(recordName: String) throws -> UserAccount? {
        try db.fetchOne(literal: "SELECT \(Self.userColumns) FROM users WHERE record_name = \(recordName)", Self.user)
    }

    /// The user with this (lowercased) e-mail address.
    public func user(emailAddress: String) throws -> UserAccount? {
        try db.fetchOne(literal: "SELECT \(Self.userColumns) FROM users WHERE email = \(emailAddress)", Self.user)
    }

    /// Every user, by e-mail address.
    public func users() throws -> [UserAccount] {
        try db.fetchAll(literal: "SELECT \(Self.userColumns) FROM users ORDER BY email", Self.user)
    }

    /// Inserts a user; `false` when the record name or the e-mail address is taken.
    public func insertUser(_ user: UserAccount) throws -> Bool {
        try db.execute(
            literal: """
                INSERT INTO users (\(Self.userColumns))
                VALUES (\(user.userRecordName), \(user.emailAddress), \(try Self.encode(user.nameComponents)), \(user.isDiscoverable),
                    \(user.passwordHash), \(user.createdAt), \(user.emailVerifiedAt), \(user.disabledAt))
                ON CONFLICT DO NOTHING
                """
        ) == 1
    }

    /// Replaces a user's names, discoverability, password hash and verification time.
    public func updateUser(_ user: UserAccount) throws {
        try db.execute(
            literal: """
                UPDATE users SET name_components = \(try Self.encode(user.nameComponents)), discoverable = \(user.isDiscoverable),
                    password_hash = \(user.passwordHash), email_verified_at = \(user.emailVerifiedAt)
                WHERE record_name = \(user.userRecordName)
                """
        )
    }

    /// Disables (or, with `nil`, enables) a user; `false` when there is no such user.
    public func setUserDisabled(recordName: String, at time: Int64?) throws -> Bool {
        try db.execute(literal: "UPDATE users SET disabled_at = \(time) WHERE record_name = \(recordName)") == 1
    }

    // MARK: Sessions

    private static let sessionColumns: SQL = "id, user_record_name, container, keep_signed_in, created_at, newest_token_used_at, revoked_at"
    /// The session's columns and its account's disabled time, over `web_auth_sessions s LEFT JOIN users u`.
    private static let joinedSessionColumns: SQL = """
        s.id, s.user_record_name, s.container, s.keep_signed_in, s.created_at, s.newest_token_used_at, s.revoked_at, u.disabled_at
        FROM web_auth_sessions s LEFT JOIN users u ON u.record_name = s.user_record_name
        """

    private static func session(_ row: any SQLRow) throws -> WebAuthSession {
        WebAuthSession(
            sessionID: try row[0], userRecordName: try row[1], container: try row[2], keepSignedIn: try row[3],
            createdAt: try row[4], newestTokenUsedAt: try row[5], revokedAt: try row[6], accountDisabledAt: try row[7]
        )
    }

    /// The web auth session with this ID, with its account's disabled time (one read).
    public func session(id: String) throws -> WebAuthSession? {
        try db.fetchOne(literal: "SELECT \(Self.joinedSessionColumns) WHERE s.id = \(id)", Self.session)
    }

    /// The sessions of a user, newest first.
    public func sessions(ofUser userRecordName: String) throws -> [WebAuthSession] {
        try db.fetchAll(
            literal: "SELECT \(Self.joinedSessionColumns) WHERE s.user_record_name = \(userRecordName) ORDER BY s.created_at DESC, s.id",
            Self.session
        )
    }

    /// Inserts a session.
    public func insertSession(_ session: WebAuthSession) throws {
        try db.execute(
            literal: """
                INSERT INTO web_auth_sessions (\(Self.sessionColumns))
                VALUES (\(session.sessionID), \(session.userRecordName), \(session.container), \(session.keepSignedIn),
                    \(session.createdAt), \(session.newestTokenUsedAt), \(session.revokedAt))
                """
        )
    }

    /// Moves the session's newest token use forward to `issuedAt` (never back).
    public func noteTokenUse(sessionID: String, issuedAt: Int64) throws {
        try db.execute(
            literal: """
                UPDATE web_auth_sessions SET newest_token_used_at = \(issuedAt) WHERE id = \(sessionID) AND newest_token_used_at < \(issuedAt)
                """
        )
    }

    /// Revokes one session (once).
    public func revokeSession(id: String, at time: Int64) throws {
        try db.execute(literal: "UPDATE web_auth_sessions SET revoked_at = \(time) WHERE id = \(id) AND revoked_at IS NULL")
    }

    /// Revokes every live session of a user.
    public func revokeSessions(ofUser userRecordName: String, at time: Int64) throws {
        try db.execute(
            literal: "UPDATE web_auth_sessions SET revoked_at = \(time) WHERE user_record_name = \(userRecordName) AND revoked_at IS NULL"
        )
    }

    // MARK: API tokens

    private static let tokenColumns: SQL =
        "token_hash, prefix, container, environment, name, sign_in_callback_url, allowed_origins, created_at, revoked_at"

    private func token(_ row: any SQLRow) throws -> APITokenRecord {
        let environment: String = try row[3]
        guard let environmentValue = Environment(rawValue: environment) else {
            throw corruption("API token \(try row[1] as String)… has environment '\(environment)'")
        }
        let origins: String = try row[6]
        return APITokenRecord(
            tokenHash: try row[0], prefix: try row[1], container: try row[2], environment: environmentValue, name: try row[4],
            signInCallbackURL: try row[5], allowedOrigins: origins.split(separator: "\n").map(String.init),
            createdAt: try row[7], revokedAt: try row[8]
        )
    }

    /// The API token whose SHA-256 is `hash`.
    public func apiToken(hash: String) throws -> APITokenRecord? {
        try db.fetchOne(literal: "SELECT \(Self.tokenColumns) FROM api_tokens WHERE token_hash = \(hash)", token)
    }

    /// The API tokens of a container (or all), newest first.
    public func apiTokens(container: String?) throws -> [APITokenRecord] {
        let filter: SQL = container.map { "WHERE container = \($0) " } ?? ""
        return try db.fetchAll(literal: "SELECT \(Self.tokenColumns) FROM api_tokens \(filter)ORDER BY created_at DESC, prefix", token)
    }

    /// Inserts an API token.
    public func insertAPIToken(_ token: APITokenRecord) throws {
        try db.execute(
            literal: """
                INSERT INTO api_tokens (\(Self.tokenColumns))
                VALUES (\(token.tokenHash), \(token.prefix), \(token.container), \(token.environment.rawValue), \(token.name),
                    \(token.signInCallbackURL), \(token.allowedOrigins.joined(separator: "\n")), \(token.createdAt), \(token.revokedAt))
                """
        )
    }

    /// Revokes an API token; `false` when there is no live one with this hash.
    public func revokeAPIToken(hash: String, at time: Int64) throws -> Bool {
        try db.execute(literal: "UPDATE api_tokens SET revoked_at = \(time) WHERE token_hash = \(hash) AND revoked_at IS NULL") == 1
    }

    // MARK: Server-to-server keys

    private static let keyColumns: SQL = "key_id, container, environment, name, public_key_pem, created_at, revoked_at"

    private func key(_ row: any SQLRow) throws -> ServerKeyRecord {
        let environment: String = try row[2]
        guard let environmentValue = Environment(rawValue: environment) else {
            throw corruption("server key \(try row[0] as String) has environment '\(environment)'")
        }
        return ServerKeyRecord(
            keyID: try row[0], container: try row[1], environment: environmentValue, name: try row[3], publicKeyPEM: try row[4],
            createdAt: try row[5], revokedAt: try row[6]
        )
    }

    /// The server-to-server key with this ID.
    public func serverKey(id: String) throws -> ServerKeyRecord? {
        try db.fetchOne(literal: "SELECT \(Self.keyColumns) FROM server_keys WHERE key_id = \(id)", key)
    }

    /// The keys of a container (or all), newest first.
    public func serverKeys(container: String?) throws -> [ServerKeyRecord] {
        let filter: SQL = container.map { "WHERE container = \($0) " } ?? ""
        return try db.fetchAll(literal: "SELECT \(Self.keyColumns) FROM server_keys \(filter)ORDER BY created_at DESC, key_id", key)
    }

    /// Inserts a key.
    public func insertServerKey(_ key: ServerKeyRecord) throws {
        try db.execute(
            literal: """
                INSERT INTO server_keys (\(Self.keyColumns))
                VALUES (\(key.keyID), \(key.container), \(key.environment.rawValue), \(key.name), \(key.publicKeyPEM), \(key.createdAt),
                    \(key.revokedAt))
                """
        )
    }

    /// Revokes a key; `false` when there is no live one with this ID.
    public func revokeServerKey(id: String, at time: Int64) throws -> Bool {
        try db.execute(literal: "UPDATE server_keys SET revoked_at = \(time) WHERE key_id = \(id) AND revoked_at IS NULL") == 1
    }
}
