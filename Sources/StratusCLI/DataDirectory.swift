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
        guard database.isEmpty || isPostgres else {
            throw CLIError("--database must be a postgres:// or postgresql:// URL; got '\(database)'")
        }
        try Self.makePrivate(url)
    }

    /// Creates the directory readable by this user only (`0700`), or narrows an existing one to it.
    ///
    /// It holds password hashes, e-mail addresses, session IDs, the token secret and users'
    /// assets; files in it are `0600` (the CLI's umask, the stores' own modes), but the folder's
    /// mode is what keeps every other user of the machine out, whatever an older version left.
    static func makePrivate(_ url: URL) throws {
        let manager = FileManager.default
        guard manager.fileExists(atPath: url.path) else {
            try manager.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            return
        }
        let mode = (try manager.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber)?.intValue ?? 0
        guard mode & 0o077 != 0 else { return }
        do {
            try manager.setAttributes([.posixPermissions: mode & 0o700 | 0o700], ofItemAtPath: url.path)
        } catch {
            throw CLIError(
                "the data directory \(url.path) is readable by other users (mode \(String(mode, radix: 8))) and could not be narrowed to 0700: \(error)")
        }
        FileHandle.standardError.write(Data("stratus: narrowed the data directory \(url.path) from mode \(String(mode, radix: 8)) to 700\n".utf8))
    }

    /// Reads `--data-dir` and `--database` (or their environment variables).
    init(_ options: Options) throws {
        try self.init(path: options.string("data-dir", default: "./.stratus"), database: options.string("database", default: ""))
    }

    /// Whether the records live in PostgreSQL.
    var isPostgres: Bool { database.hasPrefix("postgres://") || database.hasPrefix("postgresql://") }

    var storePath: String { url.appendingPathComponent("stratus.sqlite").path }

    /// Where asset files live (content-addressed) by default: `assets/` in the directory.
    var assetsURL: URL { url.appendingPathComponent("assets", isDirectory: true) }

    /// Where asset files live: `--assets-directory` (or `STRATUS_ASSETS_DIRECTORY`), else ``assetsURL``.
    func assetsDirectory(_ options: Options) -> URL {
        let given = options.string("assets-directory", default: "")
        return given.isEmpty ? assetsURL : URL(fileURLWithPath: given, isDirectory: true).standardizedFileURL
    }

    /// Opens the records' store: PostgreSQL at ``database``, else SQLite in the directory with `memory`.
    func openStore(memory: SQLiteStoreMemory = SQLiteStoreMemory(), logger: Logger) async throws -> any RecordStore & AccountStore & ConsoleStore {
        if isPostgres { return try await PostgresRecordStore.open(url: database, logger: logger) }
        return try await SQLiteRecordStore.open(path: storePath, memory: memory, logger: logger)
    }

    /// The secret that seals tokens: in the store when nodes share it (PostgreSQL: every node must
    /// open every other node's tokens), otherwise in the data directory.
    func tokenSecret(for store: any RecordStore) async throws -> Data {
        if let shared = store.nodeCoordination {
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
