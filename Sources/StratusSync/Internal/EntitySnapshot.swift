import Foundation
import StratusClient
import StratusWire

/// What reading an entity needs from the controller, as `Sendable` values a confinement block can carry.
struct SnapshotContext: Sendable {
    let zoneID: ZoneID
    let descriptions: [String: EntityDescription]
    /// The identities of the placeholders the delegate handed out.
    let placeholders: Set<ObjectIdentifier>
    let delegate: any SyncDelegate

    /// The description of a type, or an error naming it.
    func description(of type: any SyncableEntity.Type) throws(SyncError) -> EntityDescription {
        try EntityDescription.lookup(type, in: descriptions)
    }

    /// Whether `entity` stands in for an empty reference (never uploaded).
    func isPlaceholder(_ entity: any SyncableEntity) -> Bool {
        placeholders.contains(entity.syncIdentity) || type(of: entity).referencePlaceholder?.syncIdentity == entity.syncIdentity
            || delegate.isReferencePlaceholder(entity)
    }

    /// The entity's record name, assigned (and written into the entity) when it has none.
    func ensureSyncID(_ entity: any SyncableEntity) throws(SyncError) -> String {
        let description = try description(of: type(of: entity))
        if let id = description.syncID(of: entity) { return id }
        let id = LiveIdentifiers.newRecordName()
        entity.setValue(id, forKey: description.syncIdKey)
        return id
    }
}

/// What one entity holds for its record, read in its confinement: the record name (assigned now
/// when it has none), the mapped fields, the fields it clears, its change date and the entities it
/// references, each with whether it is owned (a weak type).
struct EntitySnapshot: Sendable {
    var name: String
    var fields: [String: FieldValue] = [:]
    var cleared: Set<String> = []
    var changeDate: Date?
    var targets: [(entity: EntityRef, owned: Bool)] = []

    /// Reads `entity` (call it inside the entity's confinement; related entities share it).
    ///
    /// - Parameter keys: The local properties to read; `nil` reads every mapped one.
    static func read(
        _ entity: any SyncableEntity, keys: Set<String>?, description: EntityDescription, context: SnapshotContext
    ) throws(SyncError) -> EntitySnapshot {
        var snapshot = EntitySnapshot(name: try context.ensureSyncID(entity))
        snapshot.changeDate = description.changeDate(of: entity)
        for (local, remote) in description.mapping where keys?.contains(local) ?? true {
            if let value = FieldConversion.fieldValue(of: entity.value(forKey: local)) {
                snapshot.fields[remote] = value
            } else {
                snapshot.cleared.insert(remote)
            }
        }
        for (local, remote) in description.references where keys?.contains(local) ?? true {
            // A placeholder stands in for an empty reference; it is never uploaded.
            guard let target = entity.value(forKey: local) as? any SyncableEntity, !context.isPlaceholder(target) else {
                snapshot.cleared.insert(remote)
                continue
            }
            let targetName = try context.ensureSyncID(target)
            snapshot.fields[remote] = .reference(Reference(RecordID(recordName: targetName, zoneID: context.zoneID)))
            snapshot.targets.append((EntityRef(target), type(of: target).isWeak))
        }
        for list in description.referenceLists where keys?.contains(list.localKey) ?? true {
            let members = entity.value(forKey: list.localKey) as? [any SyncableEntity] ?? []
            var references: [Reference] = []
            for member in members {
                references.append(Reference(RecordID(recordName: try context.ensureSyncID(member), zoneID: context.zoneID)))
                snapshot.targets.append((EntityRef(member), type(of: member).isWeak))
            }
            snapshot.fields[list.remoteKey] = references.isEmpty ? .emptyList : .referenceList(references)
        }
        return snapshot
    }
}
