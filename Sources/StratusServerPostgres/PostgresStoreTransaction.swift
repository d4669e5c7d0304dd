import Foundation
import StratusPostgres
import StratusServer
import StratusServerSQL
import StratusSQL
import StratusWire

/// The store primitives on one PostgreSQL connection inside one transaction.
///
/// Reads run in a `REPEATABLE READ READ ONLY` snapshot. Writes run in `READ COMMITTED`
/// and lock each zone row they touch (`SELECT … FOR UPDATE`) before reading or writing its
/// records, so writers of one zone take turns until commit, exactly like SQLite's single
/// writer, while writers of different zones run side by side (see Documentation/0008-postgres.md).
///
/// Confined to the connection's queue for the life of one `read` or `write`.
final class PostgresStoreTransaction: RecordStoreWriter {
    let db: PostgresConnection
    let isWriting: Bool
    /// Zones this write transaction holds the row lock of.
    var lockedZones: Set<Int64> = []
    /// Zones whose records changed in this transaction; they move up their database's change log at commit.
    private var touchedZones: Set<Int64> = []
    /// Schemas as this transaction sees them, and each read zone's, so indexing a record needs no extra read.
    private var seen = TransactionSchemas()
    /// The first transient failure (deadlock, serialization, duplicate key) a statement met, even if the caller caught it.
    private(set) var transientFailure: PostgresError?
    /// Records and zone counters known under this transaction's zone locks.
    var cache = PostgresWriteCache()
    /// Record writes not sent yet: rendered as multi-row statements right before the connection sends anything.
    var writes = PostgresRecordWrites()
    /// Whether subscriptions watch the types a write announced: asked with the zone lock, answered from here.
    var probes = PostgresSubscriptionProbes()
    /// Zones read by name in this write; answered from here while this transaction holds the zone's lock.
    private var zonesByName: [ZoneName: ZoneRow] = [:]
    /// A later write of a group (``PostgresWriteCoalescer``): it may lock only zones after every zone
    /// the group holds, and none once the group holds its database's row, so groups on different
    /// nodes take their locks in one order and cannot deadlock each other.
    var locksInOrderOnly = false
    /// Whether this transaction locked its database's `databases` row (a quota check).
    private(set) var holdsDatabaseRow = false
    /// Whether a lock was refused for the group's order since the coalescer last cleared it (even if the write caught the error).
    var lockOrderRefused = false
    /// What the group's writes will read, read with its first lock (``PostgresGroupReads``).
    var groupReads: PostgresGroupReads?

    /// Where queued notifications are announced to every node.
    let pushChannel: String
    /// Counts the candidate rows queries read, when the store keeps count.
    var queryStatistics: PostgresQueryStatistics?

    /// The store's last decoded schema, reused for identical stored bytes.
    private let schemas: SchemaMemo

    init(_ db: PostgresConnection, writing: Bool, pushChannel: String, schemas: SchemaMemo) {
        self.db = db
        self.isWriting = writing
        self.pushChannel = pushChannel
        self.schemas = schemas
        // The connection forgets this when the transaction ends (the cycle it makes is broken then).
        if writing { db.pendingStatements = { self.writes.take() } }
    }

    // MARK: Statements

    /// Runs a statement, noting failures that a retry of the whole transaction may cure.
    @discardableResult
    func query(_ sql: String, _ parameters: [any PostgresBindable] = []) throws -> [PostgresRow] {
        try tracking { try db.query(sql, parameters) }
    }

    @discardableResult
    func execute(_ sql: String, _ parameters: [any PostgresBindable] = []) throws -> Int {
        try tracking { try db.execute(sql, parameters) }
    }

    /// Runs statements, noting a failure that a retry of the whole transaction may cure.
    @discardableResult
    func tracking<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PostgresError {
            if transientFailure == nil, error.isTransient || error.code == .uniqueViolation { transientFailure = error }
            throw error
        }
    }

    func first(_ sql: String, _ parameters: [any PostgresBindable] = []) throws -> PostgresRow? {
        try query(sql, parameters).first
    }

    // MARK: Containers and schemas

    func containerExists(_ identifier: String) throws -> Bool {
        try first("SELECT 1 FROM containers WHERE identifier = $1", [identifier]) != nil
    }

    func containers() throws -> [String] {
        try query("SELECT identifier FROM containers ORDER BY identifier").map { try $0[0] }
    }

    func createContainer(_ identifier: String, createdAt: Int64) throws -> Bool {
        try execute("INSERT INTO containers (identifier, created_at) VALUES ($1, $2) ON CONFLICT DO NOTHING", [identifier, createdAt]) == 1
    }

    func schema(container: String, environment: Environment) throws -> Schema {
        try seen.schema(TransactionSchemas.Key(container: container, environment: environment.rawValue)) { try self.loadSchema($0) }
    }

    private func loadSchema(_ key: TransactionSchemas.Key) throws -> Schema {
        let statement = Self.schemaStatement(key)
        return try schema(try first(statement.sql, statement.parameters))
    }

    private static func schemaStatement(_ key: TransactionSchemas.Key) -> PostgresStatement {
        PostgresStatement("SELECT body FROM schemas WHERE container = $1 AND environment = $2", [key.container, key.environment], prepared: true)
    }

    /// The schema in a row of ``schemaStatement(_:)``; none stored is the empty schema.
    private func schema(_ row: PostgresRow?) throws -> Schema {
        guard let row else { return Schema() }
        return try schemas.schema(decoding: try row[0] as Data)
    }

    func saveSchema(_ schema: Schema, container: String, environment: Environment) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        try execute(
            """
            INSERT INTO schemas (container, environment, body) VALUES ($1, $2, $3)
            ON CONFLICT (container, environment) DO UPDATE SET body = excluded.body
            """,
            [container, environment.rawValue, try encoder.encode(schema)]
        )
        seen.wrote(schema, for: TransactionSchemas.Key(container: container, environment: environment.rawValue))
    }

    // MARK: Zones

    static let zoneColumns = SQLStoredRows.zoneColumns

    static func zone(_ row: PostgresRow) throws -> ZoneRow {
        try SQLStoredRows.zone(row, dialect: .postgres)
    }

    static func arguments(_ database: DatabaseKey) -> [any PostgresBindable] {
        [database.container, database.environment.rawValue, database.scope.rawValue, database.owner]
    }

    /// The row as this transaction holds it: with the change counter it advanced without writing it yet.
    private func current(_ zone: ZoneRow) -> ZoneRow {
        guard let counter = cache.counters[zone.rowID] else { return zone }
        var zone = zone
        zone.changeSequence = counter
        return zone
    }

    /// In a write, the database's schema is read in the same round trip (a write of the zone's
    /// records reads it next), before the zone is locked.
    func zone(named name: String, in database: DatabaseKey) throws -> ZoneRow? {
        let select = PostgresStatement(
            """
            SELECT \(Self.zoneColumns) FROM zones
            WHERE container = $1 AND environment = $2 AND scope = $3 AND owner = $4 AND zone_name = $5 AND NOT deleted
            """,
            Self.arguments(database) + [name], prepared: true
        )
        let cacheKey = ZoneName(database: database, name: name)
        if isWriting, let known = zonesByName[cacheKey], lockedZones.contains(known.rowID) { return current(known) }
        let key = TransactionSchemas.Key(container: database.container, environment: database.environment.rawValue)
        let rows: [PostgresRow]
        if isWriting, seen.known(key) == nil {
            let results = try tracking { try db.pipeline([select, Self.schemaStatement(key)]) }
            let schema = try schema(results[1].first)
            _ = seen.schema(key) { _ in schema }
            rows = results[0]
        } else {
            rows = try query(select.sql, select.parameters)
        }
        let zone = try rows.first.map(Self.zone).map(current)
        // Remembered so that writing a record of the zone need not read the zone again for its schema.
        if let zone {
            seen.noteZone(zone)
            if isWriting { noteGroupZone(zone, named: cacheKey) }
            if isWriting, lockedZones.contains(zone.rowID) { zonesByName[cacheKey] = zone }
        }
        return zone
    }

    func zone(rowID: Int64) throws -> ZoneRow? {
        try first("SELECT \(Self.zoneColumns) FROM zones WHERE id = $1", [rowID]).map(Self.zone).map(current)
    }

    func zones(in database: DatabaseKey) throws -> [ZoneRow] {
        try query(
            """
            SELECT \(Self.zoneColumns) FROM zones
            WHERE container = $1 AND environment = $2 AND scope = $3 AND owner = $4 AND NOT deleted ORDER BY zone_name
            """,
            Self.arguments(database)
        ).map(Self.zone).map(current)
    }

    func deleteZone(_ zone: ZoneRow) throws {
        try lockZone(zone.rowID)
        try execute("UPDATE zones SET deleted = true, db_seq = \(Self.transactionStamp) WHERE id = $1", [zone.rowID])
        try execute("DELETE FROM records WHERE zone_id = $1", [zone.rowID])
        try execute("DELETE FROM record_refs WHERE zone_id = $1", [zone.rowID])
        try tracking { try PostgresFieldIndex.removeZone(zone.rowID, db) }
        touchedZones.remove(zone.rowID)
        cache.forgetZone(zone.rowID)
        zonesByName = zonesByName.filter { $0.value.rowID != zone.rowID }
    }

    /// Locks a zone row for the rest of a write transaction (once); reads do nothing.
    ///
    /// Every write that reads or changes a zone's records goes through here first, so a
    /// change-tag check and the write it guards cannot interleave with another writer's.
    ///
    /// The lock is queued (`PostgresConnection.enqueue`): it goes out in one round trip with
    /// the statement that reads or writes the zone next, ahead of it.
    func lockZone(_ zoneRowID: Int64) throws {
        guard isWriting, !lockedZones.contains(zoneRowID) else { return }
        try claimLock(onZone: zoneRowID)
        db.enqueue(PostgresStatement("SELECT 1 FROM zones WHERE id = $1 FOR UPDATE", [zoneRowID], prepared: true))
        lockedZones.insert(zoneRowID)
    }

    func nextChangeSequence(inZone zoneRowID: Int64) throws -> Int64 {
        // Known counter (read under the lock by `prefetchRecords`, or taken before): counted here,
        // written to the zone row by `finish`, with the COMMIT. A savepoint that rolls back rolls
        // the counter back too (`PostgresWriteCache.rollBack`), so no number is skipped.
        if lockedZones.contains(zoneRowID), let sequence = cache.nextSequence(inZone: zoneRowID) {
            touchedZones.insert(zoneRowID)
            return sequence
        }
        try claimLock(onZone: zoneRowID)
        lockedZones.insert(zoneRowID)
        // The row lock this UPDATE takes (or already holds) lasts until commit: writers of one
        // zone take numbers one after another, and commit in that order. A savepoint that rolls
        // back also rolls back the increment, so the number is reused, never skipped.
        guard let row = try first("UPDATE zones SET change_seq = change_seq + 1 WHERE id = $1 AND NOT deleted RETURNING change_seq", [zoneRowID])
        else {
            throw PostgresStoreCorruption(message: "zone row \(zoneRowID) is missing or deleted")
        }
        touchedZones.insert(zoneRowID)
        let sequence: Int64 = try row[0]
        cache.learnCounter(sequence, ofZone: zoneRowID)
        return sequence
    }

    /// Keeps a zone row read under this transaction's lock: no other writer can change it until commit.
    func rememberLocked(_ zone: ZoneRow) {
        zonesByName[ZoneName(database: zone.database, name: zone.zoneName)] = zone
    }

    /// Refuses, in a later write of a group, a zone lock that would break the group's lock order:
    /// the write is then run in a later group (``PostgresWriteCoalescer``).
    func claimLock(onZone zoneRowID: Int64) throws {
        guard locksInOrderOnly, !lockedZones.contains(zoneRowID) else { return }
        if holdsDatabaseRow || lockedZones.contains(where: { $0 > zoneRowID }) {
            lockOrderRefused = true
            throw PostgresLockOrderDeferral()
        }
    }

    /// Notes that the database's `databases` row is locked until commit (a quota check's lock).
    func noteDatabaseRowLocked() {
        holdsDatabaseRow = true
    }

    /// Moves every zone whose records changed up its database's change log; called once before commit.
    ///
    /// One statement per zone stamps it with this transaction's ID (``transactionStamp``) and with
    /// the change counter counted in memory. The zone is locked already and no shared row is, so
    /// writers of different zones of one database do not wait for each other here; the statements
    /// are queued and go out with the `COMMIT` in one round trip. A failure is thrown by the commit.
    func finish() throws {
        for zoneRowID in touchedZones.sorted() {
            db.enqueue(
                PostgresStatement(
                    """
                    UPDATE zones SET db_seq = \(Self.transactionStamp), change_seq = coalesce($2, change_seq) WHERE id = $1 AND NOT deleted
                    """,
                    [zoneRowID, cache.counters[zoneRowID]], prepared: true
                )
            )
        }
        touchedZones = []
    }

    /// The fields the schema declares for a record's type, as this transaction sees the schema.
    func declaredFields(of record: StoredRecord) throws -> [String: FieldSchema] {
        try seen.declaredFields(of: record, dialect: .postgres, zone: { try self.zone(rowID: $0) }, load: { try self.loadSchema($0) })
    }

    /// Runs `body` in a savepoint. If it rolls back, so do the zone locks taken inside it
    /// (PostgreSQL releases row locks of an aborted subtransaction): they are taken again when next needed.
    /// What it knew (`cache`) rolls back with it, and so do the record writes buffered since
    /// (`writes`): those buffered before it are buffered again, as whatever of them went out inside
    /// the savepoint (rendered after its `SAVEPOINT`) is undone or dropped unsent with it.
    func savepoint<T>(_ body: () throws -> T) throws -> T {
        let lockedBefore = lockedZones
        let touchedBefore = touchedZones
        let mark = cache.mark()
        let writesMark = writes.mark()
        do {
            let value = try db.savepoint(body)
            writes.release(writesMark)
            return value
        } catch {
            lockedZones = lockedBefore
            touchedZones = touchedBefore
            cache.rollBack(to: mark)
            writes.rollBack(to: writesMark)
            throw error
        }
    }
}

/// A later write of a group asked for a zone lock out of the group's order; it runs in a later group.
struct PostgresLockOrderDeferral: Error {}

/// A zone's name in its database: the key of a write's zone lookups.
struct ZoneName: Hashable {
    var database: DatabaseKey
    var name: String
}

/// A row that breaks the store's own invariants.
struct PostgresStoreCorruption: Error, CustomStringConvertible {
    var message: String
    var description: String { "the PostgreSQL record store is inconsistent: \(message)" }
}
