import Foundation
import StratusServer
import StratusSQLite
import StratusWire

/// A field's index rows built over the stored records a chunk at a time, each chunk its own write
/// transaction (issue 20, "no stalls"; Documentation/0002 "Index builds in chunks").
///
/// A schema change that turns a field's index on records a build in `field_index_builds` in its
/// own transaction: zone, record type, field and `done_through`, the last record name (in
/// `records_by_type` order) whose rows are built. Each ``step(_:chunkSize:)`` takes the next
/// `chunkSize` live records after it, replaces their rows of that field with rows built from their
/// stored fields as the schema says now, and moves `done_through` on, or drops the build after the
/// last chunk. Between chunks other writes run; they index every record they save or delete as the
/// schema says (the field included), so a record changed in a chunk already built keeps correct
/// rows, and one in a chunk not yet built gets them again from its stored fields when its chunk
/// comes. A build is gone only when every chunk has committed: a crash between chunks leaves it
/// where the next start (``SQLiteIndexBuilder``) picks it up.
enum SQLiteFieldIndexBuild {
    /// One pending build, as `field_index_builds` holds it.
    struct Build: Equatable {
        var zone: Int64
        var recordType: String
        var field: String
        var doneThrough: String?
    }

    static let createTable = """
        -- Index builds not finished yet (SQLiteFieldIndexBuild): one row per zone, record type and field whose
        -- index rows are being built a chunk of records at a time. `done_through` is the last record name
        -- (in record-name order) whose rows are built; NULL when no chunk is done. Queries of the type wait
        -- until its builds are gone.
        CREATE TABLE field_index_builds (
            zone_id INTEGER NOT NULL,
            record_type TEXT NOT NULL,
            field_name TEXT NOT NULL,
            done_through TEXT,
            PRIMARY KEY (zone_id, record_type, field_name)
        ) WITHOUT ROWID;
        """

    /// Records that the field's rows must be built (again) from the first record on.
    static func schedule(zone: Int64, recordType: String, field: String, _ db: SQLiteConnection) throws {
        try db.execute(
            "INSERT OR REPLACE INTO field_index_builds (zone_id, record_type, field_name, done_through) VALUES (?, ?, ?, NULL)",
            binding: zone, recordType, field
        )
    }

    /// Drops the field's build, if any (its index was turned off).
    static func cancel(zone: Int64, recordType: String, field: String, _ db: SQLiteConnection) throws {
        try db.execute("DELETE FROM field_index_builds WHERE zone_id = ? AND record_type = ? AND field_name = ?", binding: zone, recordType, field)
    }

    /// Drops the builds of a deleted zone.
    static func cancelZone(_ zone: Int64, _ db: SQLiteConnection) throws {
        try db.execute("DELETE FROM field_index_builds WHERE zone_id = ?", binding: zone)
    }

    /// The record types with a build left.
    static func pendingTypes(_ db: SQLiteConnection) throws -> Set<String> {
        Set(try db.fetchAll(String.self, "SELECT DISTINCT record_type FROM field_index_builds"))
    }

    /// Builds the next chunk of the first pending build, inside the caller's write transaction, and
    /// more chunks while `more()` says no other write is waiting for the writer.
    ///
    /// - Returns: The record types with a build left after these chunks.
    static func step(_ db: SQLiteConnection, chunkSize: Int, more: () -> Bool = { false }) throws -> Set<String> {
        var chunks = 0
        while let next = try db.fetchOne(
            "SELECT zone_id, record_type, field_name, done_through FROM field_index_builds ORDER BY zone_id, record_type, field_name LIMIT 1",
            [],
            { row in Build(zone: try row[0], recordType: try row[1], field: try row[2], doneThrough: try row[3]) }
        ) {
            try build(next, chunkSize: chunkSize, db)
            chunks += 1
            // NB: a transaction of many chunks costs each page once; a commit per chunk rewrites the
            // pages of the field's value index that every chunk touches (~1.5× the CPU of one transaction).
            guard chunks < maximumChunksPerTransaction, more() else { break }
        }
        return try pendingTypes(db)
    }

    /// The most chunks one transaction takes while no other write waits (its WAL stays bounded).
    static let maximumChunksPerTransaction = 40

    private static func build(_ build: Build, chunkSize: Int, _ db: SQLiteConnection) throws {
        guard let field = try field(of: build, db), !SQLiteFieldIndex.Spec(field).isEmpty else {
            // NB: the zone is gone or the index was turned off: its rows went with that change.
            return try cancel(zone: build.zone, recordType: build.recordType, field: build.field, db)
        }
        let spec = SQLiteFieldIndex.Spec(field)
        let range = SQLiteFieldIndex.NameRange(after: build.doneThrough, through: try chunkEnd(of: build, chunkSize: chunkSize, db))
        // The chunk's live records lose their rows of the field (from an older index, or written since
        // the build began) and get them again from their stored fields.
        let names = "SELECT record_name FROM records WHERE zone_id = ? AND record_type = ? AND deleted = 0" + range.sql
        let arguments = SQLiteArguments([build.zone, build.field, build.zone, build.recordType] + range.arguments)
        try db.execute("DELETE FROM field_index WHERE zone_id = ? AND field_name = ? AND record_name IN (\(names))", arguments)
        try db.execute("DELETE FROM field_tokens WHERE zone_id = ? AND field_name = ? AND record_name IN (\(names))", arguments)
        try SQLiteFieldIndex.reindex(
            zone: build.zone, recordType: build.recordType, field: build.field, type: field.type, spec: spec, range: range, db)
        if let through = range.through {
            try db.execute(
                "UPDATE field_index_builds SET done_through = ? WHERE zone_id = ? AND record_type = ? AND field_name = ?",
                binding: through, build.zone, build.recordType, build.field
            )
        } else {
            try cancel(zone: build.zone, recordType: build.recordType, field: build.field, db)
        }
    }

    /// The field as the zone's schema declares it now; `nil` when the zone or the field is gone.
    private static func field(of build: Build, _ db: SQLiteConnection) throws -> FieldSchema? {
        guard
            let body = try db.fetchOne(
                Data.self,
                "SELECT s.body FROM zones z JOIN schemas s ON s.container = z.container AND s.environment = z.environment WHERE z.id = ? AND z.deleted = 0",
                [build.zone]
            )
        else { return nil }
        return try JSONDecoder().decode(Schema.self, from: body).recordTypes[build.recordType]?.fields[build.field]
    }

    /// The name of the chunk's last record; `nil` when fewer than `chunkSize` records are left (the last chunk).
    private static func chunkEnd(of build: Build, chunkSize: Int, _ db: SQLiteConnection) throws -> String? {
        let after = SQLiteFieldIndex.NameRange(after: build.doneThrough, through: nil)
        return try db.fetchOne(
            String.self,
            "SELECT record_name FROM records WHERE zone_id = ? AND record_type = ? AND deleted = 0\(after.sql) ORDER BY record_name LIMIT 1 OFFSET ?",
            SQLiteArguments([build.zone, build.recordType] + after.arguments + [chunkSize - 1])
        )
    }
}
