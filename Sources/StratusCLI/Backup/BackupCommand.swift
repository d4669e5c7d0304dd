import Foundation
import StratusSQLite

/// `stratus backup FILE` and `stratus restore FILE`: one consistent archive of a server's data,
/// taken while it serves (Documentation/0015-operations.md, "Backups").
enum BackupCommand {
    static let usage = """
        stratus backup FILE [--data-dir ./.stratus] [--assets-directory DIR]
        stratus restore FILE --data-dir NEW_DIR [--assets-directory DIR]
        stratus backup|restore FILE --database postgres://… [--data-dir DIR] [--assets-directory DIR]

        backup writes one archive (a tar file, mode 0600) of a server's SQLite data directory
        while the server runs and keeps writing: a snapshot of the database (records, accounts,
        sessions, tokens, keys, subscriptions, push queues, shares, quotas, APNs credentials)
        taken in one read transaction (VACUUM INTO), the token secret, and every asset file the
        snapshot knows. `stratus serve --backup-every 6h --backup-keep 14 [--backup-directory DIR]`
        does the same on a schedule (default folder: backups/ in the data directory). It holds password hashes and the token secret: keep it as private as the
        data directory. restore checks every byte against the archive's manifest, then fills a
        data directory that holds no database yet; start `stratus serve` on it.
        With --database postgres://…, backup runs pg_dump from one exported snapshot (the
        archive holds that dump and the assets it knows) and restore runs pg_restore into an
        empty database (PostgreSQL's client programs must be installed; Documentation/0015-operations.md).
        """

    static func run(_ command: String, _ options: Options) async throws {
        guard let file = options.positional.first, options.positional.count == 1 else { throw CLIError("\(command) needs one FILE\n\n\(usage)") }
        let archive = URL(fileURLWithPath: file).standardizedFileURL
        let dataDirectory = try DataDirectory(options)
        let assets = dataDirectory.assetsDirectory(options)
        if command == "backup" {
            try backup(to: archive, from: dataDirectory, assets: assets)
        } else {
            try restore(from: archive, into: dataDirectory, assets: assets)
        }
    }

    /// Snapshots the database, then archives the snapshot, the token secret and the assets it knows.
    static func backup(to archive: URL, from dataDirectory: DataDirectory, assets: URL, quiet: Bool = false) throws {
        let snapshot = archive.deletingLastPathComponent().appendingPathComponent(".stratus-snapshot-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: snapshot) }
        let createdAt = Date()
        let known: Set<String>
        let referenced: Set<String>
        if dataDirectory.isPostgres {
            (known, referenced) = try PostgresBackup.snapshot(dataDirectory.database, into: snapshot)
        } else {
            (known, referenced) = try sqliteSnapshot(of: dataDirectory, into: snapshot)
        }
        let writer = try BackupWriter(destination: archive)
        do {
            try writer.add(snapshot, as: dataDirectory.isPostgres ? PostgresBackup.dumpEntry : BackupManifest.databaseEntry)
            let secret = dataDirectory.url.appendingPathComponent("token-secret")
            // NB: on PostgreSQL the token secret is a row of the database, so it is in the dump.
            if !dataDirectory.isPostgres, FileManager.default.fileExists(atPath: secret.path) { try writer.add(secret, as: BackupManifest.tokenSecretEntry) }
            var copied = 0
            for key in known.filter(BackupManifest.isAssetKey).sorted() {
                let file = assets.appendingPathComponent("objects").appendingPathComponent(String(key.prefix(2))).appendingPathComponent(key)
                guard FileManager.default.fileExists(atPath: file.path) else {
                    // A released content collected since the snapshot; one a record references must be there.
                    guard !referenced.contains(key) else { throw CLIError("the asset \(key), which records reference, is missing from \(assets.path)") }
                    continue
                }
                try writer.add(file, as: BackupManifest.assetPrefix + key)
                copied += 1
            }
            let manifest = try writer.finish(createdAt: createdAt, database: dataDirectory.isPostgres ? "postgres" : "sqlite")
            let bytes = manifest.files.reduce(Int64(0)) { $0 + $1.size }
            let source = dataDirectory.isPostgres ? "the PostgreSQL database" : dataDirectory.url.path
            if !quiet {
                print(
                    "backed up \(source) to \(archive.path): the database, \(manifest.files.contains { $0.name == BackupManifest.tokenSecretEntry } ? "the token secret, " : "")\(copied) asset(s), \(bytes) bytes"
                )
            }
        } catch {
            writer.abandon()
            throw error
        }
    }

    /// `VACUUM INTO` on a read-only connection: the whole database in one read transaction.
    private static func sqliteSnapshot(of dataDirectory: DataDirectory, into snapshot: URL) throws -> (known: Set<String>, referenced: Set<String>) {
        guard FileManager.default.fileExists(atPath: dataDirectory.storePath) else {
            throw CLIError("\(dataDirectory.url.path) holds no Stratus database (stratus.sqlite); nothing to back up")
        }
        let live = try SQLiteConnection(configuration: SQLiteConfiguration(path: dataDirectory.storePath), readOnly: true)
        // NB: VACUUM INTO reads the whole database in one read transaction: a consistent snapshot
        // while the server goes on writing through WAL.
        try live.execute("VACUUM INTO ?", [snapshot.path])
        try live.close()
        return try assetKeys(in: snapshot)
    }

    /// Every content key the snapshot knows, and those records reference.
    private static func assetKeys(in snapshot: URL) throws -> (known: Set<String>, referenced: Set<String>) {
        let connection = try SQLiteConnection(configuration: SQLiteConfiguration(path: snapshot.path), readOnly: true)
        defer { try? connection.close() }
        guard try connection.tableExists("assets") else { return ([], []) }
        let known = Set(try connection.fetchAll(String.self, "SELECT key FROM assets"))
        let referenced = Set(try connection.fetchAll(String.self, "SELECT DISTINCT key FROM asset_refs"))
        return (known.union(referenced), referenced)
    }

    /// Checks the archive in a staging folder, then moves its files into a data directory without
    /// a database (or restores the dump into an empty PostgreSQL database).
    static func restore(from archive: URL, into dataDirectory: DataDirectory, assets: URL) throws {
        let store = URL(fileURLWithPath: dataDirectory.storePath)
        guard dataDirectory.isPostgres || !FileManager.default.fileExists(atPath: store.path) else {
            throw CLIError("\(dataDirectory.url.path) already holds a database; restore into a new data directory (nothing was changed)")
        }
        let staging = dataDirectory.url.appendingPathComponent(".restore-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: staging) }
        let manifest = try BackupReader.extract(archive, into: staging)
        guard manifest.database == (dataDirectory.isPostgres ? "postgres" : "sqlite") else {
            throw CLIError(
                "\(archive.path) is a backup of a \(manifest.database) database; restore it \(manifest.database == "postgres" ? "with --database postgres://…" : "into a --data-dir without --database")"
            )
        }
        let database = BackupReader.stagedURL(dataDirectory.isPostgres ? PostgresBackup.dumpEntry : BackupManifest.databaseEntry, in: staging)
        if dataDirectory.isPostgres {
            try PostgresBackup.restore(database, into: dataDirectory.database)
        } else {
            let check = try SQLiteConnection(configuration: SQLiteConfiguration(path: database.path), readOnly: true)
            let integrity = try check.fetchOne(String.self, "PRAGMA integrity_check") ?? ""
            try check.close()
            guard integrity == "ok" else { throw CLIError("\(archive.path): the database fails SQLite's integrity check: \(integrity)") }
        }
        var restoredAssets = 0
        for file in manifest.files where file.name.hasPrefix(BackupManifest.assetPrefix) {
            let key = String(file.name.dropFirst(BackupManifest.assetPrefix.count))
            let folder = assets.appendingPathComponent("objects").appendingPathComponent(String(key.prefix(2)), isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let target = folder.appendingPathComponent(key)
            if FileManager.default.fileExists(atPath: target.path) { continue }  // content-addressed: the same bytes
            try FileManager.default.moveItem(at: BackupReader.stagedURL(file.name, in: staging), to: target)
            restoredAssets += 1
        }
        if manifest.files.contains(where: { $0.name == BackupManifest.tokenSecretEntry }) {
            let secret = dataDirectory.url.appendingPathComponent("token-secret")
            try? FileManager.default.removeItem(at: secret)
            try FileManager.default.moveItem(at: BackupReader.stagedURL(BackupManifest.tokenSecretEntry, in: staging), to: secret)
        }
        // NB: last, so a data directory with a database is always a complete one.
        if !dataDirectory.isPostgres { try FileManager.default.moveItem(at: database, to: store) }
        let target = dataDirectory.isPostgres ? "the PostgreSQL database" : dataDirectory.url.path
        print("restored \(archive.path) (taken \(manifest.createdAt)) into \(target): the database, \(restoredAssets) asset(s); start it with stratus serve")
    }
}
