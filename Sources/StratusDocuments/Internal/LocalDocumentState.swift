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

    /// Whether the server has not confirmed this record yet (no change tag): a creation whose answer was
    /// lost, or a document the server no longer has. It uploads under its record name at the next sync.
    var isPending: Bool { record.changeTag == nil }

    /// Whether `record` is the version this row already holds. The change tag alone does not say so: a
    /// new server at the same address (its data wiped) numbers its tags from the start again.
    func holds(_ record: DocumentRecord) -> Bool {
        self.record.changeTag == record.changeTag && self.record.contentHash == record.contentHash
            && DocumentPath.sameSpelling(path, record.path)
    }

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
/// - `documents`: one row per document record, with the file's inode and mtime. `path` is the
///   record's exact spelling; `path_key` (unique) its ``DocumentPath/key(_:)``, so two spellings of one
///   name (NFC and NFD) can never be two rows. A row whose record has no change tag is **pending**: its
///   record name is chosen and kept here before the first upload, so a retried upload reuses it.
/// - `versions`: one row per conflict version; `uploaded = 0` until its record is saved.
/// - `meta(name, value)`: `token`, `zone` (`1` once the zone exists), `downloadsEagerly`.
struct LocalDocumentState: Sendable {
    let database: SQLiteDatabaseQueue
    /// Opened for queries only: every write throws ``DocumentsError/Code/readOnly``.
    let readOnly: Bool

    /// Opens the file, creating and migrating it; `readOnly` opens an existing one for queries only.
    init(path: String, readOnly: Bool = false) throws {
        if readOnly, !FileManager.default.fileExists(atPath: path) {
            throw DocumentsError(.notFound, "no documents state at '\(path)': this folder was never synced")
        }
        do {
            var configuration = SQLiteConfiguration(path: path)
            configuration.journalMode = .wal
            database = try SQLiteDatabaseQueue(configuration: configuration)
            self.readOnly = readOnly
            if !readOnly { try database.writeSync(Self.migrate) }
        } catch let error as DocumentsError {
            throw error
        } catch {
            throw DocumentsError(.localState, "cannot open the documents state database '\(path)': \(error)", underlying: error)
        }
    }

    private static func migrate(_ db: SQLiteConnection) throws {
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS documents (record_name TEXT PRIMARY KEY, path TEXT NOT NULL UNIQUE, body BLOB NOT NULL,
            downloaded INTEGER NOT NULL, inode INTEGER, mtime_ns INTEGER, path_key TEXT)
            """)
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS versions (record_name TEXT PRIMARY KEY, document TEXT NOT NULL, body BLOB NOT NULL,
            uploaded INTEGER NOT NULL, downloaded INTEGER NOT NULL)
            """)
        try db.execute("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
        let columns: [String] = try db.fetchAll("PRAGMA table_info(documents)") { row in try row[1] }
        if !columns.contains("path_key") { try db.execute("ALTER TABLE documents ADD COLUMN path_key TEXT") }
        // Rows of an earlier release have no key: give them one. Two spellings of one name were two rows
        // then; the second is forgotten (its file uploads as a new document and collides like any other)
        // and the token is dropped so the next fetch sees every record again.
        var keys = Set(try db.fetchAll("SELECT path_key FROM documents WHERE path_key IS NOT NULL") { row -> String in try row[0] })
        let unkeyed: [(String, String)] = try db.fetchAll("SELECT record_name, path FROM documents WHERE path_key IS NULL ORDER BY rowid") {
            row in (try row[0], try row[1])
        }
        for (name, path) in unkeyed {
            let key = DocumentPath.key(path)
            if keys.insert(key).inserted {
                try db.execute("UPDATE documents SET path_key = ? WHERE record_name = ?", [key, name])
            } else {
                try db.execute("DELETE FROM documents WHERE record_name = ?", [name])
                try db.execute("DELETE FROM meta WHERE name = 'token'")
            }
        }
        try db.execute("CREATE UNIQUE INDEX IF NOT EXISTS documents_path_key ON documents (path_key)")
    }

    func close() { try? database.close() }

    private func run<T>(_ what: String, reading: Bool = false, _ body: (SQLiteConnection) throws -> T) throws -> T {
        guard reading || !readOnly else {
            throw DocumentsError(.readOnly, "the documents state was opened read-only: cannot \(what)")
        }
        do {
            // Reads do not take the write lock: a read-only container reads beside the owner's writes.
            return try reading ? database.readSync(body) : database.writeSync(body)
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

    /// The document at `path` or at another spelling of it (``DocumentPath/key(_:)``).
    func document(atPath path: String) throws -> LocalDocument? {
        try documents(where: "path_key = ?", [DocumentPath.key(path)]).first
    }

    private func documents(where condition: String, _ arguments: SQLiteArguments) throws -> [LocalDocument] {
        try run("read documents", reading: true) { db in
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
            let key = DocumentPath.key(document.path)
            try db.execute("DELETE FROM documents WHERE (path_key = ? OR path = ?) AND record_name <> ?", [key, document.path, document.record.recordName])
            try db.execute(
                "INSERT OR REPLACE INTO documents (record_name, path, body, downloaded, inode, mtime_ns, path_key) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    document.record.recordName, document.path, try StoredDocument.encode(document.record), document.downloaded,
                    document.inode.map { Int64(bitPattern: $0) }, document.mtimeNs, key,
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
        try run("read versions", reading: true) { db in
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
        try run("read '\(name)'", reading: true) { db in try db.fetchOne(String.self, "SELECT value FROM meta WHERE name = ?", [name]) }
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
