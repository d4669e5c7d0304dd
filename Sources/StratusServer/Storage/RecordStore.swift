public import StratusWire

/// Where the cloud database keeps its data: the one protocol every back end implements.
///
/// The service's logic (change tags, merges, atomic batches, references, change
/// feeds) lives once, in `StratusServer`, and runs inside a store transaction
/// through the small synchronous primitives of ``RecordStoreReader`` and
/// ``RecordStoreWriter``. A back end only has to make those primitives fast
/// and each `write` one serializable transaction.
///
/// ```swift
/// let zone = try await store.write { tx in
///     try tx.createZone(named: "Inbox", in: database, createdAt: now)
/// }
/// ```
public protocol RecordStore: Sendable {
    /// Runs `body` in a read-only snapshot.
    func read<T: Sendable>(_ body: @escaping @Sendable (any RecordStoreReader) throws -> T) async throws -> T

    /// Runs `body` in one serializable transaction that commits if `body` returns and rolls back if it throws.
    ///
    /// A back end may run `body` again, from the start, in a new transaction (PostgreSQL does after a
    /// serialization failure or a deadlock): `body` must have no effect outside the store.
    func write<T: Sendable>(_ body: @escaping @Sendable (any RecordStoreWriter) throws -> T) async throws -> T

    /// Runs `body` as ``write(_:)`` does, as a write of one zone only: a back end may run it in one
    /// transaction with other such writes of the zone that arrive meanwhile (group commit), each in
    /// a savepoint of its own, so the outcome is that of a serial execution and nobody learns of a
    /// write before it is durable. `body` must not write outside the zone.
    ///
    /// ```swift
    /// let inbox = try await store.write(in: database, zone: "Inbox") { tx in try tx.zone(named: "Inbox", in: database) }
    /// ```
    func write<T: Sendable>(
        in database: DatabaseKey, zone zoneName: String, _ body: @escaping @Sendable (any RecordStoreWriter) throws -> T
    ) async throws -> T

    /// Runs `body` as ``write(in:zone:_:)`` does, told what it will read: a back end that groups
    /// writes may read what the whole group will ask for at once (PostgreSQL: one locking read for
    /// every write of the group instead of one each). A hint only: `body` still asks for everything.
    ///
    /// ```swift
    /// let hint = RecordWriteHint(recordNames: ["note-1"], recordTypes: ["Note"])
    /// let inbox = try await store.write(in: database, zone: "Inbox", reading: hint) { tx in try tx.zone(named: "Inbox", in: database) }
    /// ```
    func write<T: Sendable>(
        in database: DatabaseKey, zone zoneName: String, reading hint: RecordWriteHint,
        _ body: @escaping @Sendable (any RecordStoreWriter) throws -> T
    ) async throws -> T

    /// Whether request-rate buckets are shared by every node of a cluster: part of the contract,
    /// so a store says which it does instead of a capability being discovered by a cast.
    var rateBucketSharing: RateBucketSharing { get }

    /// What the store offers the nodes that share it (secrets, the push relay); `nil` for a store
    /// that serves one node. Part of the contract, as ``rateBucketSharing``.
    var nodeCoordination: (any NodeCoordination)? { get }

    /// Makes sure the indexes `plan` reads exist (a back end may build some on first use).
    func prepare(for plan: QueryPlan) async throws

    /// Closes the store; no call may follow.
    func close() async throws
}

extension RecordStore {
    /// Does nothing: the back end keeps every index it needs at all times.
    public func prepare(for plan: QueryPlan) async throws {}

    /// A plain ``write(_:)``: the back end groups writes on its own, or not at all.
    public func write<T: Sendable>(
        in database: DatabaseKey, zone zoneName: String, _ body: @escaping @Sendable (any RecordStoreWriter) throws -> T
    ) async throws -> T {
        try await write(body)
    }

    /// ``write(in:zone:_:)``, the hint unused.
    public func write<T: Sendable>(
        in database: DatabaseKey, zone zoneName: String, reading hint: RecordWriteHint,
        _ body: @escaping @Sendable (any RecordStoreWriter) throws -> T
    ) async throws -> T {
        try await write(in: database, zone: zoneName, body)
    }
}

/// What a write of one zone will read, said before it runs (``RecordStore/write(in:zone:reading:_:)``):
/// the records it names and the record types whose subscriptions its push outbox asks about.
///
/// ```swift
/// let hint = RecordWriteHint(recordNames: ["note-1", "note-2"], recordTypes: ["Note"])
/// print(hint.recordNames.count)
/// ```
public struct RecordWriteHint: Sendable, Hashable {
    /// The names of the records the write reads or writes, in its zone.
    public var recordNames: [String]
    /// The record types the write names.
    public var recordTypes: Set<String>

    /// Creates a hint.
    public init(recordNames: [String] = [], recordTypes: Set<String> = []) {
        self.recordNames = recordNames
        self.recordTypes = recordTypes
    }
}

/// Read primitives, valid only inside ``RecordStore/read(_:)`` or ``RecordStore/write(_:)``.
public protocol RecordStoreReader: PushStoreReader, AssetStoreReader, APNsStoreReader, ShareStoreReader, ExportStoreReader {
    /// Whether a container with this identifier was created.
    func containerExists(_ identifier: String) throws -> Bool

    /// Every container identifier, sorted.
    func containers() throws -> [String]

    /// The schema of a container environment (empty if none was saved).
    func schema(container: String, environment: Environment) throws -> Schema

    /// The live zone named `name` in `database`, if any.
    func zone(named name: String, in database: DatabaseKey) throws -> ZoneRow?

    /// The zone with this row ID, deleted or not.
    func zone(rowID: Int64) throws -> ZoneRow?

    /// The live zones of `database`, by name.
    func zones(in database: DatabaseKey) throws -> [ZoneRow]

    /// Zones (deleted ones included) changed after `position`, in feed order, at most `limit`.
    ///
    /// Only changes no write in flight can still precede are returned: on PostgreSQL, where writers
    /// of different zones commit in any order, changes at or past the oldest running transaction
    /// are held back (``DatabaseZoneChanges/heldBackThrough``). A position without a zone row ID
    /// (an older token's counter value) means every change the database counter had numbered up to it.
    func zoneChanges(in database: DatabaseKey, after position: DatabaseFeedPosition, limit: Int) throws -> DatabaseZoneChanges

    /// The record (or tombstone) named `name` in the zone.
    func record(named name: String, inZone zoneRowID: Int64) throws -> StoredRecord?

    /// Records and tombstones changed after `sequence`, in change order, at most `limit`.
    ///
    /// - Parameter recordTypes: Only these types, when given.
    func recordChanges(inZone zoneRowID: Int64, after sequence: Int64, limit: Int, recordTypes: Set<String>?) throws -> [StoredRecord]

    /// Live records whose reference fields point at the target, with the action each uses.
    func references(toRecord name: String, inZone zoneRowID: Int64) throws -> [ReferenceEdge]

    /// Runs a query on the back end's indexes: at most `plan.limit` live records in the plan's
    /// order, after `plan.after`, and the cursor of the last one when more follow.
    func query(_ plan: QueryPlan) throws -> QueryPage
}

/// Write primitives, valid only inside ``RecordStore/write(_:)``.
public protocol RecordStoreWriter: RecordStoreReader, PushStoreWriter, AssetStoreWriter, APNsStoreWriter, ShareStoreWriter, UsageStoreWriter {
    /// Creates a container; `false` if it existed already.
    func createContainer(_ identifier: String, createdAt: Int64) throws -> Bool

    /// Replaces the schema of a container environment.
    func saveSchema(_ schema: Schema, container: String, environment: Environment) throws

    /// Creates a live zone and records the change in the database's change log.
    func createZone(named name: String, in database: DatabaseKey, createdAt: Int64) throws -> ZoneRow

    /// Marks the zone deleted, removes its records, and records the change in the database's change log.
    func deleteZone(_ zone: ZoneRow) throws

    /// The next record change sequence of the zone; also moves the zone up the database change log.
    func nextChangeSequence(inZone zoneRowID: Int64) throws -> Int64

    /// Inserts or replaces a live record, its field index and its outgoing references.
    func putRecord(_ record: StoredRecord, references: [ReferenceEdge]) throws

    /// Replaces a record by a tombstone carrying `modified` and `sequence`, dropping its index and references.
    func deleteRecord(named name: String, inZone zoneRowID: Int64, modified: StoredRecord.Stamp, sequence: Int64) throws

    /// Runs `body` in a savepoint: its writes are undone if it throws, and the error is rethrown.
    func savepoint<T>(_ body: () throws -> T) throws -> T

    /// Announces the records of one zone a batch is about to read and write, so that a back end
    /// with costly round trips can lock the zone and read them all at once; a hint only.
    ///
    /// ```swift
    /// try tx.prefetchRecords(named: ["a", "b"], inZone: zone.rowID)
    /// let a = try tx.record(named: "a", inZone: zone.rowID)  // no further round trip on PostgreSQL
    /// ```
    func prefetchRecords(named names: [String], inZone zoneRowID: Int64) throws

    /// Announces the record types a batch is about to write in a zone, so that a back end with
    /// costly round trips can ask whether a subscription watches them (``subscriptionCandidates(in:zoneName:recordTypes:after:limit:)``
    /// with no cursor and a limit of 1) along with ``prefetchRecords(named:inZone:)``; a hint only.
    ///
    /// ```swift
    /// try tx.prefetchSubscriptionCandidates(in: zone.database, zoneName: zone.zoneName, recordTypes: ["Note"])
    /// try tx.prefetchRecords(named: ["a"], inZone: zone.rowID)  // the question goes out with the lock on PostgreSQL
    /// ```
    func prefetchSubscriptionCandidates(in database: DatabaseKey, zoneName: String, recordTypes: Set<String>) throws
}

extension RecordStoreWriter {
    /// Does nothing: reading a record one at a time is cheap on this back end.
    public func prefetchRecords(named names: [String], inZone zoneRowID: Int64) throws {}

    /// Does nothing: asking when needed is cheap on this back end.
    public func prefetchSubscriptionCandidates(in database: DatabaseKey, zoneName: String, recordTypes: Set<String>) throws {}
}
