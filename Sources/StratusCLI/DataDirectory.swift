import Foundation
import StratusCrypto
import StratusLogging
import StratusServer
import StratusServerPostgres
import StratusServerSQLite

/// The server's data directory (the SQLite store, the token secret, assets), and the database if it is PostgreSQL.
struct DataDirectory {
    let url: URL
    /// `--database` / `STRATUS_DATABASE`: a `postgres://` URL selects PostgreSQL; empty keeps SQLite in the directory.
    let database: String

    init(path: String, database: String = "") throws {
        url = URL(fileURLWithPath: path, isDirectory: true).standardizedFileURL
        self.database = database
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        guard database.isEmpty || isPostgres else {
            throw CLIError("--database must be a postgres:// or postgresql:// URL; got '\(database)'")
        }
    }

    /// Reads `--data-dir` and `--database` (or their environment variables).
    init(_ options: Options) throws {
        try self.init(path: options.string("data-dir", default: "./.stratus"), database: options.string("database", default: ""))
    }

    /// Whether the records live in PostgreSQL.
    var isPostgres: Bool { database.hasPrefix("postgres://") || database.hasPrefix("postgresql://") }

    var storePath: String { url.appendingPathComponent("stratus.sqlite").path }

    /// Where asset files live (content-addressed).
    var assetsURL: URL { url.appendingPathComponent("assets", isDirectory: true) }

    func openStore(logger: Logger) async throws -> any RecordStore & AccountStore {
        if isPostgres { return try await PostgresRecordStore.open(url: database, logger: logger) }
        return try await SQLiteRecordStore.open(path: storePath, logger: logger)
    }

    /// The secret that seals tokens: in PostgreSQL when the records are there (every node must
    /// open every other node's tokens), otherwise in the data directory.
    func tokenSecret(for store: any RecordStore) async throws -> Data {
        if let shared = store as? PostgresRecordStore {
            return try await shared.sharedSecret(named: "token-secret") { try SecureRandom.bytes(count: 32) }
        }
        return try tokenSecret()
    }

    /// The secret that seals sync tokens, made on first use and kept (mode 0600) so tokens survive restarts.
    func tokenSecret() throws -> Data {
        let file = url.appendingPathComponent("token-secret")
        if let existing = try? Data(contentsOf: file), existing.count == 32 { return existing }
        let secret = try SecureRandom.bytes(count: 32)
        guard FileManager.default.createFile(atPath: file.path, contents: secret, attributes: [.posixPermissions: 0o600]) else {
            throw CLIError("could not write the token secret to \(file.path)")
        }
        return secret
    }
}
