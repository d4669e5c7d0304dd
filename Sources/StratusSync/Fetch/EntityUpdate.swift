import Foundation
import StratusClient
import StratusWire

/// Sets entities from records: plain fields, sync ID and change date first, then relationships —
/// record names resolved to entities through those applied together, the delegate and (when
/// asked) the server; an empty to-one reference gets the target type's placeholder.
struct EntityUpdate {
    /// Entities by record name: those applied together, and the targets resolved so far.
    var known: [String: EntityRef] = [:]

    /// Sets an entity's plain fields, sync ID and change date (on this device's clock) from a record.
    static func applyFields(
        of record: StratusClient.Record, to entity: EntityRef, description: EntityDescription, on sync: isolated SyncController
    ) async throws {
        let name = record.recordID.recordName
        let date = sync.clock.deviceTime(record.modificationDate)
        let assets = sync.assets.fieldStates(of: record, description: description)
        try await entity.access { entity in
            entity.setValue(name, forKey: description.syncIdKey)
            entity.setValue(date, forKey: description.changeDateKey)
            for (local, remote) in description.mapping {
                if let pending = assets[local] {
                    // Asset-backed: the entity keeps bytes it holds for this asset, else nil until downloaded.
                    if pending { entity.setValue(nil, forKey: local) }
                    continue
                }
                let current = entity.value(forKey: local)
                entity.setValue(FieldConversion.localValue(of: record.fields[remote], like: current), forKey: local)
            }
        }
    }

    /// Sets an entity's relationships from a record.
    ///
    /// - Parameter fetch: Fetch a target this device does not have from the server (and apply it).
    /// - Returns: The record names of targets not found (only without `fetch`).
    @discardableResult
    mutating func applyReferences(
        of record: StratusClient.Record, to entity: EntityRef, description: EntityDescription, fetch: Bool, on sync: isolated SyncController
    ) async throws -> [String] {
        let currentTypes = try await entity.access { entity in
            description.references.keys.reduce(into: [String: any SyncableEntity.Type]()) { types, local in
                if let current = entity.value(forKey: local) as? any SyncableEntity { types[local] = type(of: current) }
            }
        }
        var unresolved: [String] = []
        var targets: [String: EntityRef?] = [:]
        for (local, remote) in description.references {
            let hint = description.referenceTypes[local] ?? currentTypes[local]
            var target: EntityRef?
            if case .reference(let reference)? = record.fields[remote] {
                target = try await resolve(reference.recordName, hint: hint, fetch: fetch, unresolved: &unresolved, on: sync)
            }
            if target == nil, let hint, let placeholder = try await sync.delegatePlaceholder(for: hint) {
                sync.placeholders[placeholder.identity] = placeholder
                target = placeholder
            }
            targets[local] = .some(target)
        }
        var lists: [String: [EntityRef]] = [:]
        for list in description.referenceLists {
            var members: [EntityRef] = []
            if case .referenceList(let references)? = record.fields[list.remoteKey] {
                for reference in references {
                    if let member = try await resolve(reference.recordName, hint: list.entityType, fetch: fetch, unresolved: &unresolved, on: sync) {
                        members.append(member)
                    }
                }
            }
            lists[list.localKey] = members
        }
        let resolved = targets
        let members = lists
        try await entity.access { entity in
            // Related entities share the entity's confinement: setting them here is touching them here.
            for (local, target) in resolved { entity.setValue(target?.entity, forKey: local) }
            for (local, list) in members { entity.setValue(list.map(\.entity), forKey: local) }
        }
        return unresolved
    }

    /// The local entity for a record name.
    private mutating func resolve(
        _ name: String, hint: (any SyncableEntity.Type)?, fetch: Bool, unresolved: inout [String], on sync: isolated SyncController
    ) async throws -> EntityRef? {
        if let known = known[name] { return known }
        var candidates: [any SyncableEntity.Type] = []
        if let hint { candidates.append(hint) }
        if let type = try sync.bookkeeping.base(name).flatMap({ sync.descriptions[$0.recordType]?.type }) { candidates.append(type) }
        if hint == nil { candidates += sync.descriptions.values.map(\.type) }
        for type in candidates {
            if let found = try await sync.delegateEntity(ofType: type, syncID: name) {
                known[name] = found
                return found
            }
        }
        guard fetch else {
            unresolved.append(name)
            return nil
        }
        let record = try await sync.database.record(for: RecordID(recordName: name, zoneID: sync.zoneID))
        guard let description = sync.descriptions[record.recordType] else { return nil }
        let entity = try await sync.delegateCreateEntity(ofType: description.type)
        try await Self.applyFields(of: record, to: entity, description: description, on: sync)
        known[name] = entity
        try await applyReferences(of: record, to: entity, description: description, fetch: true, on: sync)
        return entity
    }
}
