public import Foundation
public import StratusLogging
import StratusPostgres
public import StratusServer

/// What the nodes sharing the database get from it besides records and rate buckets: the secrets
/// every node must share, such as the key that seals sync tokens, and the push relay.
extension PostgresRecordStore: NodeCoordination {
    /// This store: every node that opens the database shares its secrets and push wake-ups.
    public var nodeCoordination: (any NodeCoordination)? { self }

    /// Starts a ``PostgresPushRelay`` on the store's push channel.
    public func startPushRelay(logger: Logger, wake: @escaping @Sendable (Set<String>) -> Void) throws -> any PushRelay {
        try PostgresPushRelay(store: self, logger: logger, wake: wake)
    }

    /// The secret named `name`, made with `make` by the first node that asks and read by every other.
    ///
    /// Sync tokens, continuation markers and web auth tokens sealed by one node must open on
    /// every other, so nodes sharing a database share these keys through it.
    ///
    /// - Parameters:
    ///   - name: The secret's name, such as `token-secret`.
    ///   - make: Makes a new secret (called at most once per node, and stored only if no other node stored one first).
    /// - Returns: The stored secret.
    /// - Throws: `PostgresError`, or what `make` throws.
    public func sharedSecret(named name: String, make: @escaping @Sendable () throws -> Data) async throws -> Data {
        try await pool.withConnection { db in
            try db.transaction { db in
                try db.execute("INSERT INTO server_secrets (name, value) VALUES ($1, $2) ON CONFLICT DO NOTHING", [name, try make()])
                guard let row = try db.queryFirst("SELECT value FROM server_secrets WHERE name = $1", [name]) else {
                    throw PostgresStoreCorruption(message: "secret '\(name)' is missing right after it was stored")
                }
                return try row[0] as Data
            }
        }
    }

    static func registerSecrets(in migrator: inout PostgresMigrator) {
        migrator.registerMigration("pg-v3-server-secrets") { db in
            try db.execute("CREATE TABLE server_secrets (name TEXT PRIMARY KEY, value BYTEA NOT NULL)")
        }
    }
}
