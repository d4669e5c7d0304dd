import Foundation
import StratusClient
import StratusWire

/// The outbox entries one call queues (a `save()`, an `upload(_:)`, a full sync, a recovery's
/// re-queue): each entity read in its confinement, the entities it references first (parent before
/// child), each entity at most once.
struct OutboxCollector {
    /// How an entity's save is collected.
    struct Options {
        /// Local properties to save (`nil`: every mapped field).
        var keys: Set<String>?
        /// The record name of the entity that owns it (a weak entity), written as its owner field.
        var owner: String?
        /// When the edit was made, on the server's timeline; now by default.
        var editedAt: Date?
        /// A forced sync's recheck rather than an edit: fields equal to the last-synced version are
        /// left out, and the entry is dated with that version's modification date, so a value this
        /// device merely still holds never overrides a newer edit made elsewhere.
        var recheck = false
        /// Leave out fields equal to the latest version this device has queued or synced, and queue
        /// nothing when none is left (a change reported twice is uploaded once).
        var onlyChanges = false
        /// Collect the referenced entities too.
        var followReferences = true
    }

    /// The entries, in the order they go into the outbox.
    var entries: [OutboxEntry] = []
    /// The entities read so far (a reference cycle is followed once).
    private var visited: Set<ObjectIdentifier> = []

    /// Whether `entity` was collected already.
    func contains(_ entity: EntityRef) -> Bool { visited.contains(entity.identity) }

    /// Lets `entity` be collected again (a change of an entity collected earlier as a reference).
    mutating func revisit(_ entity: EntityRef) { visited.remove(entity.identity) }

    /// Appends the entries saving `entity` (referenced entities first, unless `followReferences`
    /// is off; `entity` last).
    ///
    /// - Returns: Whether `entity`'s own entry was added (not when it is ignored, or had nothing to send).
    @discardableResult
    mutating func save(_ entity: EntityRef, _ options: Options = Options(), on sync: isolated SyncController) async throws -> Bool {
        let description = try sync.description(of: entity.type)
        visited.insert(entity.identity)
        let context = SnapshotContext(
            zoneID: sync.zoneID, descriptions: sync.descriptions, placeholders: Set(sync.placeholders.keys), delegate: sync.delegate)
        var snapshot = try await entity.access { try EntitySnapshot.read($0, keys: options.keys, description: description, context: context) }
        let name = snapshot.name
        if let owner = options.owner {
            snapshot.fields[SyncController.ownerField] = .reference(
                Reference(RecordID(recordName: owner, zoneID: sync.zoneID), action: .deleteSelf))
        }
        if sync.configuration.ignoreKeys.contains(name) { return false }  // referenced, not uploaded: sync leaves it alone
        for (target, owned) in snapshot.targets where options.followReferences && !visited.contains(target.identity) {
            try await save(target, Options(owner: owned ? name : nil, recheck: options.recheck, onlyChanges: options.onlyChanges), on: sync)
        }
        var date = options.editedAt ?? sync.editTime()
        if options.recheck, let base = try sync.bookkeeping.base(name), base.record.recordChangeTag != nil {
            let held = base.record.fields ?? [:]
            snapshot.fields = snapshot.fields.filter { held[$0.key] != $0.value }
            snapshot.cleared = snapshot.cleared.filter { held[$0] != nil }
            date = base.modificationDate ?? date
        }
        if options.onlyChanges {
            let latest = try Self.latestFields(name, in: sync.bookkeeping)
            snapshot.fields = snapshot.fields.filter { latest?[$0.key] != $0.value }
            snapshot.cleared = snapshot.cleared.filter { latest?[$0] != nil }
            guard latest == nil || !snapshot.fields.isEmpty || !snapshot.cleared.isEmpty else { return false }
        }
        sync.liveEntities[name] = entity
        entries.append(
            OutboxEntry(
                seq: 0, kind: .save, recordType: description.recordType, recordName: name, fields: snapshot.fields, cleared: snapshot.cleared,
                editedAt: date))
        return true
    }

    /// The fields of the latest version of a record this device knows: the last-synced version with
    /// the changes waiting in the outbox on top; `nil` when it has neither (never saved).
    static func latestFields(_ name: String, in bookkeeping: SyncBookkeeping) throws -> [String: FieldValue]? {
        let base = try bookkeeping.base(name)
        let pending = try bookkeeping.outboxEntries(for: name)
        guard base != nil || !pending.isEmpty else { return nil }
        var fields = base?.record.fields ?? [:]
        for entry in pending {
            guard entry.kind == .save else { return nil }  // a deletion waits: whatever comes next is new
            for (key, value) in entry.fields { fields[key] = value }
            for key in entry.cleared { fields[key] = nil }
        }
        return fields
    }
}
