import Foundation
import StratusClient
import StratusSQLite
import StratusWire

/// A document as this device last synced it: the server's record, and what the file on disk looked like.
struct LocalDocument: Sendable, Equatable {
    var record: DocumentRecord
    /// Whether the bytes are on disk (`false`: a placeholder).
    var downloaded: Bool
    /// The file's inode and modification time (ns) when it matched `record`; `nil` for a placeholder.
    var inode: UInt64?
    var mtimeNs: Int64?

    var path: String { record.path }

    /// Whether a file's metadata is what this device last synced (so its content needs no hashing).
    func matches(_ entry: DiskEntry) -> Bool {
        downloaded && entry.size == record.size && entry.inode == inode && entry.mtimeNs == mtimeNs
    }
}

/// A conflict version known on this device.
struct LocalVersion: Sendable, Equatable {
    var record: DocumentRecord
    /// Whether the version record is on the server yet.
    var uploaded: Bool
    /// Whether its bytes are in the versions folder.
    var downloaded: Bool
}

/// The container's SQLite file: synced documents, conflict versions, and the zone's sync token.
///
/// - `documents`: one row per document record (path unique), with the file's inode and mtime.
/// - `versions`: one row per conflict version; `uploaded = 0` until its record is saved.
/// - `meta(name, value)`: `token`, `zone` (`1` once the zone exists).
struct LocalDocumentState: Sendable {
    let database: SQLiteDatabaseQueue

    init(path: String) throws {
        do {
            var configuration = SQLiteConfiguration(path: path)
            configuration.journalMode = .wal
            database = try SQLiteDatabaseQueue(configuration: configuration)
            try database.writeSync { db in
                try db.execute(
                    """
                    CREATE TABLE IF NOT EXISTS documents (record_name TEXT PRIMARY KEY, path TEXT NOT NULL UNIQUE, body BLOB NOT NULL,
                    downloaded INTEGER NOT NULL, inode INTEGER, mtime_ns INTEGER)
                    """)
                try db.execute(
                    """
                    CREATE TABLE IF NOT EXISTS versions (record_name TEXT PRIMARY KEY, document TEXT NOT NULL, body BLOB NOT NULL,
                    uploaded INTEGER NOT NULL, downloaded INTEGER NOT NULL)
                    """)
                try db.execute("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
            }
        } catch {
            throw DocumentsError(.localState, "cannot open the documents state database '\(path)': \(error)", underlying: error)
        }
    }

    func close() { try? database.close() }

    private func run<T>(_ what: String, _ body: (SQLiteConnection) throws -> T) throws -> T {
        do {
            return try database.writeSync(body)
        } catch let error as DocumentsError {
            throw error
        } catch {
            throw DocumentsError(.localState, "cannot \(what) in the documents state database: \(error)", underlying: error)
        }
    }

    // MARK: Documents

    func documents() throws -> [LocalDocument] {
        try documents(where: "1 = 1", [])
    }

    func document(named recordName: String) throws -> LocalDocument? {
        try documents(where: "record_name = ?", [recordName]).first
    }

    func document(atPath path: String) throws -> LocalDocument? {
        try documents(where: "path = ?", [path]).first
    }

    private func documents(where condition: String, _ arguments: SQLiteArguments) throws -> [LocalDocument] {
        try run("read documents") { db in
            try db.fetchAll("SELECT body, downloaded, inode, mtime_ns FROM documents WHERE \(condition) ORDER BY path", arguments) { row in
                let body: Data = try row[0]
                let inode: Int64? = try row[2]
                return LocalDocument(
                    record: try StoredDocument.decode(body), downloaded: try row[1], inode: inode.map { UInt64(bitPattern: $0) },
                    mtimeNs: try row[3])
            }
        }
    }

    func save(_ document: LocalDocument) throws {
        try run("save document '\(document.path)'") { db in
            try db.execute("DELETE FROM documents WHERE path = ? AND record_name <> ?", [document.path, document.record.recordName])
            try db.execute(
                "INSERT OR REPLACE INTO documents (record_name, path, body, downloaded, inode, mtime_ns) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    document.record.recordName, document.path, try StoredDocument.encode(document.record), document.downloaded,
                    document.inode.map { Int64(bitPattern: $0) }, document.mtimeNs,
                ])
        }
    }

    func removeDocument(named recordName: String) throws {
        try run("remove document '\(recordName)'") { db in
            try db.execute("DELETE FROM documents WHERE record_name = ?", [recordName])
        }
    }

    // MARK: Versions

    func versions() throws -> [LocalVersion] {
        try run("read versions") { db in
            try db.fetchAll("SELECT body, uploaded, downloaded FROM versions ORDER BY record_name") { row in
                let body: Data = try row[0]
                return LocalVersion(record: try StoredDocument.decode(body), uploaded: try row[1], downloaded: try row[2])
            }
        }
    }

    func save(_ version: LocalVersion) throws {
        try run("save version '\(version.record.recordName)'") { db in
            try db.execute(
                "INSERT OR REPLACE INTO versions (record_name, document, body, uploaded, downloaded) VALUES (?, ?, ?, ?, ?)",
                [
                    version.record.recordName, version.record.document ?? "", try StoredDocument.encode(version.record), version.uploaded,
                    version.downloaded,
                ])
        }
    }

    func removeVersion(named recordName: String) throws {
        try run("remove version '\(recordName)'") { db in
            try db.execute("DELETE FROM versions WHERE record_name = ?", [recordName])
        }
    }

    // MARK: Meta

    func meta(_ name: String) throws -> String? {
        try run("read '\(name)'") { db in try db.fetchOne(String.self, "SELECT value FROM meta WHERE name = ?", [name]) }
    }

    func setMeta(_ name: String, _ value: String?) throws {
        try run("write '\(name)'") { db in
            if let value {
                try db.execute("INSERT OR REPLACE INTO meta (name, value) VALUES (?, ?)", [name, value])
            } else {
                try db.execute("DELETE FROM meta WHERE name = ?", [name])
            }
        }
    }
}

/// The JSON a state row stores for a ``DocumentRecord`` (download URLs are dropped: they expire).
enum StoredDocument {
    static func encode(_ record: DocumentRecord) throws -> Data {
        var stored = record
        stored.chunks = record.chunks.map { Asset(fileChecksum: $0.fileChecksum, size: $0.size) }
        return try JSONEncoder().encode(stored)
    }

    static func decode(_ data: Data) throws -> DocumentRecord {
        try JSONDecoder().decode(DocumentRecord.self, from: data)
    }
}
