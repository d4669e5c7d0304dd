import StratusLogging

extension ObjectContext {
    /// Loads a fault's values; a store failure here stops the program (faults fire inside non-throwing accessors).
    func fireFault(_ object: ManagedObject) {
        do {
            try fulfillFaults([object])
        } catch {
            preconditionFailure("could not fulfill the fault \(object.objectID) in context \"\(name)\": \(error)")
        }
    }

    /// Loads the values of the faults among `objects` in one trip up the context chain.
    ///
    /// An object that no ancestor and no row holds becomes inaccessible: its values read as `nil`.
    func fulfillFaults(_ objects: [ManagedObject]) throws {
        var faults = objects.filter { $0.committed == nil && !$0.isInaccessible }
        guard !faults.isEmpty else { return }
        widenToBatches(&faults)
        let snapshots = try ancestorSnapshots(faults.map(\.objectID))
        for object in faults {
            if let snapshot = snapshots[object.objectID] {
                object.committed = snapshot
            } else {
                object.isInaccessible = true
                object.committed = Snapshot(
                    attributes: Array(repeating: nil, count: object.entityInfo.attributes.count),
                    toOne: Array(repeating: nil, count: object.entityInfo.toOneRelationships.count))
                for relationship in object.entityInfo.toManyRelationships {
                    object.toManyBase[relationship.name] = []
                }
                logger.debug("fault for a missing object", metadata: ["objectID": "\(object.objectID)", "context": name])
            }
        }
    }

    /// Adds to `faults` the other faults of the fetch batches they belong to, and forgets those batches.
    private func widenToBatches(_ faults: inout [ManagedObject]) {
        guard faults.contains(where: { $0.faultBatch != nil }) else { return }
        var included = Set(faults.map(ObjectIdentifier.init))
        var batches: [FaultBatch] = []
        for object in faults {
            if let batch = object.faultBatch, !batches.contains(where: { $0 === batch }) { batches.append(batch) }
        }
        for batch in batches {
            for id in batch.ids {
                guard let object = registered[id] else { continue }
                object.faultBatch = nil
                if object.committed == nil, !object.isInaccessible, included.insert(ObjectIdentifier(object)).inserted {
                    faults.append(object)
                }
            }
        }
        for object in faults {
            object.faultBatch = nil
        }
    }

    /// The values of `ids` as the parent sees them (or as stored, for the root).
    func ancestorSnapshots(_ ids: [ObjectID]) throws -> [ObjectID: Snapshot] {
        if let parent {
            return try parent.performAndWait { parent in try parent.snapshotsForChild(ids) }
        }
        return try coordinator.store().snapshots(for: ids)
    }

    /// The values of `ids` as this context sees them, for a child: its own changes over its ancestors'.
    ///
    /// Runs on this context's queue. Objects deleted here are missing from the answer.
    func snapshotsForChild(_ ids: [ObjectID]) throws -> [ObjectID: Snapshot] {
        var result: [ObjectID: Snapshot] = [:]
        var missing: [ObjectID] = []
        for id in ids {
            guard let object = registered[id] else {
                missing.append(id)
                continue
            }
            if object.isDeletedFlag || object.isInaccessible { continue }
            if object.committed != nil {
                result[id] = currentSnapshot(of: object)
            } else {
                missing.append(id)
            }
        }
        guard !missing.isEmpty else { return result }
        for (id, snapshot) in try ancestorSnapshots(missing) {
            if let object = registered[id] {
                object.committed = snapshot
                result[id] = currentSnapshot(of: object)
            } else {
                result[id] = snapshot
            }
        }
        return result
    }

    /// The members of a to-many relationship of `id` as the parent sees them (or as stored).
    func ancestorRelatedIDs(of id: ObjectID, _ relationship: Relationship) throws -> Set<ObjectID> {
        if let parent {
            return try parent.performAndWait { parent in try parent.relatedIDsForChild(of: id, relationship) }
        }
        return try coordinator.store().relatedIDs(of: id, relationship)
    }

    /// The members of a to-many relationship of `id` as this context sees them, for a child.
    func relatedIDsForChild(of id: ObjectID, _ relationship: Relationship) throws -> Set<ObjectID> {
        guard let object = registered[id] else {
            return try ancestorRelatedIDs(of: id, relationship)
        }
        if object.isDeletedFlag { return [] }
        if object.toManyBase[relationship.name] == nil {
            object.toManyBase[relationship.name] = try ancestorRelatedIDs(of: id, relationship)
        }
        return toManyIDs(of: object, relationship)
    }
}
