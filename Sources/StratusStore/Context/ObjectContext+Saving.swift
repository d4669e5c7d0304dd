import StratusLogging

extension ObjectContext {
    // MARK: Saving

    /// Saves the context's changes: into its parent context, or to the store for the root context.
    ///
    /// Validates first (non-optional values, ``DeleteRule/deny`` rules), then gives inserted
    /// objects permanent IDs, then pushes the changes one level up: a child's become unsaved
    /// changes of its parent; the root's are written in one SQLite transaction. Posts
    /// ``ObjectContextNotification/Kind/didSave`` when done. Does nothing without changes.
    ///
    /// ```swift
    /// try await context.perform { context in
    ///     context.insert(entity: "Note").setValue("Hi", forKey: "text")
    ///     try context.save()
    /// }
    /// ```
    ///
    /// Optimistic locking: if an object changed in the parent (or the store) since this
    /// context read it, the save resolves the conflict with the context's ``mergePolicy``;
    /// objects whose conflicts were resolved are refreshed afterwards.
    ///
    /// - Throws: ``StoreError`` with ``StoreError/Code/missingValue``,
    ///   ``StoreError/Code/deleteDenied``, ``StoreError/Code/uniquenessViolation``,
    ///   ``StoreError/Code/mergeConflict`` (with ``MergePolicy/error``, listing the conflicts in
    ///   ``StoreError/conflicts``) or a store error. The context keeps its changes (the objects
    ///   keep their new permanent IDs).
    public func save() throws {
        checkOnQueue("save()")
        processPendingChanges()
        guard !insertedSet.isEmpty || !changedSet.isEmpty || !deletedSet.isEmpty || !discarded.isEmpty else { return }
        // One trip up the chain loads every changed object: validation reads them, locking needs their versions.
        try fulfillFaults(Array(changedSet) + Array(deletedSet))
        let inserted = insertionOrder.filter { $0.isInsertedFlag && !$0.isDeletedFlag && $0.owner === self }
        let changed = changedSet.sorted { $0.objectID < $1.objectID }
        try validateForSave(inserted + changed)
        try obtainPermanentIDs(inserted)
        let store = try coordinator.store()
        let changes = makeChangeSet(inserted: inserted, changed: changed, version: store.allocateVersion())
        let outcome: SaveOutcome
        if let parent {
            outcome = try parent.performAndWait { parent in try parent.apply(changes, from: self) }
        } else {
            outcome = try store.save(changes)
        }
        markSaved(changes, inserted: inserted, changed: changed)
        for conflict in outcome.resolvedConflicts {
            if let object = registered[conflict.objectID] { refault(object, keepingChanges: false) }
        }
        let notification = ObjectContextNotification(
            kind: .didSave, contextName: name, insertedObjectIDs: Set(changes.inserted.map(\.objectID)),
            updatedObjectIDs: Set(changes.updated.map(\.objectID)), deletedObjectIDs: Set(changes.deleted.map(\.objectID)),
            historyToken: outcome.historyToken)
        logger.debug(
            "saved context",
            metadata: [
                "context": name, "inserted": "\(changes.inserted.count)", "updated": "\(changes.updated.count)",
                "deleted": "\(changes.deleted.count)", "toStore": "\(parent == nil)",
                "conflicts": "\(outcome.resolvedConflicts.count)",
            ])
        post(notification)
        notifyAutomergingChildren(
            MergedChanges(inserted: notification.insertedObjectIDs, updated: notification.updatedObjectIDs, deleted: notification.deletedObjectIDs),
            except: nil)
    }

    /// Saves the context, then each ancestor up to the root, which writes to the store.
    ///
    /// With `wait: true` (the default) it returns when the changes are on disk. With
    /// `wait: false` it returns once this context has saved, and the ancestors' saves run
    /// later, in order, on their queues; their failures are logged, not thrown. Each ancestor
    /// saves in a turn of its own queue, so the view context's (the main queue) is not held while
    /// the root writes; ``saveToStore()`` saves in one pass instead.
    ///
    /// ```swift
    /// try await background.saveChain()              // background → view → root → disk
    /// try await background.saveChain(wait: false)   // background → view now, the rest later
    /// ```
    ///
    /// Call it outside `perform` blocks.
    ///
    /// - Parameter wait: Whether to wait for the ancestors' saves.
    /// - Throws: The ``StoreError`` of the first save that failed (with `wait: false`, of this context's own).
    public func saveChain(wait: Bool = true) async throws {
        try await perform { context in try context.save() }
        guard let parent else { return }
        if wait {
            try await parent.saveChain(wait: true)
        } else {
            parent.enqueueSaveChain()
        }
    }

    /// Saves the context and each ancestor up to the store in one pass, from inside a `perform`
    /// block: each context's queue stays held until its ancestors have saved, so no other context's
    /// save lands between this context's save and the root's write.
    ///
    /// That matters when several authors share ancestors: another context's change to an object
    /// this save inserted cannot reach an ancestor while the insertion waits there unsaved (sync's
    /// writes, children of the root context, save this way). Inserted objects have their permanent
    /// IDs when it returns. It holds every ancestor's queue until the root has written: from a child
    /// of the view context, that is the main queue — use ``saveChain(wait:)`` there.
    ///
    /// ```swift
    /// let id = try await background.perform { context in
    ///     let note = context.insert(entity: "Note")
    ///     note.setValue("Hi", forKey: "text")
    ///     try context.saveToStore()  // this context → its ancestors → disk, in one pass
    ///     return note.objectID
    /// }
    /// ```
    ///
    /// - Throws: The ``StoreError`` of the first save that failed; the contexts below it keep
    ///   having saved into their parents.
    public func saveToStore() throws {
        checkOnQueue("saveToStore()")
        try save()
        try parent?.performAndWait { parent in try parent.saveToStore() }
    }

    /// Queues a save of this context and then of each ancestor, without waiting.
    private func enqueueSaveChain() {
        enqueue { context in
            do {
                try context.save()
                context.parent?.enqueueSaveChain()
            } catch {
                context.logger.error("save in a chain failed", metadata: ["context": context.name, "error": "\(error)"])
            }
        }
    }

    /// Discards every unsaved change: inserted objects leave the context, changed and deleted ones revert.
    public func rollback() {
        checkOnQueue("rollback()")
        for object in insertedSet.union(discarded) {
            registered.removeValue(forKey: object.objectID)
            pendingDeleted.insert(object.objectID)
            object.owner = nil
        }
        for object in changedSet.union(deletedSet) {
            object.attributeChanges = [:]
            object.toOneChanges = [:]
            object.toManyDeltas = [:]
            object.isDeletedFlag = false
            object.resetSaveState()
            pendingUpdated.insert(object.objectID)
        }
        insertedSet = []
        insertionOrder = []
        changedSet = []
        deletedSet = []
        discarded = []
        pendingInserted.subtract(pendingDeleted)
    }

    /// Forgets every object: the context becomes empty, as new, and its objects unusable.
    ///
    /// Unsaved changes are lost. Later reads fetch fresh values from the parent or store.
    public func reset() {
        checkOnQueue("reset()")
        for object in registered.values {
            object.owner = nil
        }
        for object in discarded {
            object.owner = nil
        }
        registered = [:]
        insertedSet = []
        insertionOrder = []
        changedSet = []
        deletedSet = []
        discarded = []
        pendingInserted = []
        pendingUpdated = []
        pendingDeleted = []
    }

    /// Turns an object back into a fault, dropping its loaded values (and, unless `mergeChanges`, its unsaved changes).
    ///
    /// The next read loads the values from the parent context or the store, picking up
    /// changes saved there since the object was loaded.
    ///
    /// - Parameters:
    ///   - object: An object of this context.
    ///   - mergeChanges: Whether to keep the object's unsaved changes over the fresh values.
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) {
        checkOnQueue("refresh(\(object.objectID))")
        guard !object.isInsertedFlag, !object.isDeletedFlag else { return }
        refault(object, keepingChanges: mergeChanges)
    }

    /// Drops the loaded values of a saved object so they load again; its unsaved changes are kept or dropped.
    ///
    /// Kept changes are rebased: they will be saved on the version loaded next, so they count
    /// as this context's own edits.
    func refault(_ object: ManagedObject, keepingChanges: Bool) {
        guard !object.isInsertedFlag else { return }
        object.committed = nil
        object.isInaccessible = false
        object.toManyBase = [:]
        object.appliedVersion = nil
        if keepingChanges && object.hasPropertyChanges {
            object.hasValueEdits = object.hasValueEdits || !object.attributeChanges.isEmpty || !object.toOneChanges.isEmpty
        } else if !object.isDeletedFlag {
            object.attributeChanges = [:]
            object.toOneChanges = [:]
            object.toManyDeltas = [:]
            object.resetSaveState()
            changedSet.remove(object)
        }
    }

    // MARK: Steps of a save

    /// Checks non-optional values of inserted and changed objects and the deny rules of deleted ones.
    func validateForSave(_ insertedAndChanged: [ManagedObject]) throws {
        for object in insertedAndChanged {
            let entity = object.entityInfo
            for index in entity.requiredAttributeIndexes where self.attribute(of: object, at: index) == nil {
                let name = entity.attributes[index].name
                throw StoreError(
                    code: .missingValue,
                    message: "\(object.objectID) has no value for the non-optional attribute \(entity.name).\(name)",
                    entityName: entity.name, key: name, objectID: object.objectID)
            }
            for index in entity.requiredToOneIndexes where toOneID(of: object, at: index) == nil {
                let name = entity.toOneRelationships[index].name
                throw StoreError(
                    code: .missingValue,
                    message: "\(object.objectID) has no object in the non-optional relationship \(entity.name).\(name)",
                    entityName: entity.name, key: name, objectID: object.objectID)
            }
        }
        for object in deletedSet.sorted(by: { $0.objectID < $1.objectID }) {
            let entity = object.entityInfo
            for relationship in entity.toOneRelationships + entity.toManyRelationships where relationship.deleteRule == .deny {
                let remaining = relatedIDs(of: object, relationship).filter { registered[$0]?.isDeletedFlag != true }
                guard remaining.isEmpty else {
                    throw StoreError(
                        code: .deleteDenied,
                        message: "cannot delete \(object.objectID): its relationship \(entity.name).\(relationship.name) "
                            + "has the deny rule and still holds \(remaining.count) object(s)",
                        entityName: entity.name, key: relationship.name, objectID: object.objectID)
                }
            }
        }
    }

    /// Gives every inserted object a permanent ID from the store's allocator and rewrites references to the old ones.
    ///
    /// Keys are handed out in insertion order, so rows are appended to their tables in that order.
    func obtainPermanentIDs(_ inserted: [ManagedObject]) throws {
        let temporary = inserted.filter { $0.objectID.isTemporaryID }
        guard !temporary.isEmpty else { return }
        // Grouped by entity in order of first appearance; runs of one entity skip the dictionary.
        var groups: [(entity: Entity, objects: [ManagedObject])] = []
        var groupIndex: [ObjectIdentifier: Int] = [:]
        for object in temporary {
            if let last = groups.indices.last, groups[last].entity === object.entityInfo {
                groups[last].objects.append(object)
            } else if let index = groupIndex[ObjectIdentifier(object.entityInfo)] {
                groups[index].objects.append(object)
            } else {
                groupIndex[ObjectIdentifier(object.entityInfo)] = groups.count
                groups.append((object.entityInfo, [object]))
            }
        }
        let store = try coordinator.store()
        var mapping: [ObjectID: ObjectID] = [:]
        mapping.reserveCapacity(temporary.count)
        registered.reserveCapacity(registered.count + temporary.count)
        let others = Array(changedSet) + Array(deletedSet)
        let needsRewrite = !(inserted.allSatisfy(\.entityInfo.hasNoRelationships) && others.allSatisfy(\.entityInfo.hasNoRelationships))
        for (entity, ordered) in groups {
            let entityName = entity.name
            let first = store.allocatePrimaryKeys(entityName, count: ordered.count)
            for (offset, object) in ordered.enumerated() {
                let permanent = ObjectID.permanent(entityName, first + Int64(offset))
                if needsRewrite { mapping[object.objectID] = permanent }
                registered.removeValue(forKey: object.objectID)
                object.objectID = permanent
                registered[permanent] = object
            }
        }
        let remap = { (id: ObjectID) in mapping[id] ?? id }
        guard needsRewrite else { return }
        for object in inserted + others where !object.entityInfo.hasNoRelationships {
            if var committed = object.committed {
                committed.toOne = committed.toOne.map { $0.map(remap) }
                object.committed = committed
            }
            object.toOneChanges = object.toOneChanges.mapValues { $0.map(remap) }
            object.toManyBase = object.toManyBase.mapValues { Set($0.map(remap)) }
            object.toManyDeltas = object.toManyDeltas.mapValues { delta in
                ToManyDelta(added: Set(delta.added.map(remap)), removed: Set(delta.removed.map(remap)))
            }
        }
        pendingInserted = Set(pendingInserted.map(remap))
        pendingUpdated = Set(pendingUpdated.map(remap))
    }

    /// The changes to push, with `version` for values changed here. References to objects that were
    /// inserted and deleted before saving are dropped.
    func makeChangeSet(inserted: [ManagedObject], changed: [ManagedObject], version: Int64) -> ChangeSet {
        let gone = Set(discarded.map(\.objectID))
        let keep = { (id: ObjectID?) -> ObjectID? in id.flatMap { gone.contains($0) ? nil : $0 } }
        let permanent = { (ids: Set<ObjectID>) in gone.isEmpty ? ids : ids.subtracting(gone) }
        let author = transactionAuthor
        var changes = ChangeSet()
        changes.mergePolicy = mergePolicy
        changes.inserted.reserveCapacity(inserted.count)
        for object in inserted {
            var snapshot = currentSnapshot(of: object)
            snapshot.toOne = snapshot.toOne.map(keep)
            if object.hasValueEdits { snapshot.version = version }
            var toMany: [String: Set<ObjectID>] = [:]
            for relationship in object.entityInfo.toManyRelationships {
                let members = permanent(toManyIDs(of: object, relationship))
                if !members.isEmpty { toMany[relationship.name] = members }
            }
            let insertionAuthor = object.appliedAuthor ?? author
            changes.inserted.append(
                ChangeSet.Insertion(
                    objectID: object.objectID, snapshot: snapshot, toMany: toMany, author: insertionAuthor,
                    laterAuthors: object.keyAuthors.filter { $0.value != insertionAuthor }))
        }
        for object in changed {
            let entity = object.entityInfo
            let committed = object.committed
            var authors: [String: String?] = [:]
            var originalAttributes: [Int: AttributeValue?] = [:]
            var originalToOne: [Int: ObjectID?] = [:]
            for index in object.attributeChanges.keys {
                let name = entity.attributes[index].name
                authors[name] = object.keyAuthors[name] ?? author
                originalAttributes[index] = .some(committed?.attributes[index])
            }
            for index in object.toOneChanges.keys {
                let name = entity.toOneRelationships[index].name
                authors[name] = object.keyAuthors[name] ?? author
                originalToOne[index] = .some(committed?.toOne[index])
            }
            for name in object.toManyDeltas.keys {
                authors[name] = object.keyAuthors[name] ?? author
            }
            changes.updated.append(
                ChangeSet.Update(
                    objectID: object.objectID,
                    attributes: object.attributeChanges,
                    toOne: object.toOneChanges.mapValues(keep),
                    toMany: object.toManyDeltas.mapValues { delta in
                        ToManyDelta(added: permanent(delta.added), removed: permanent(delta.removed))
                    },
                    baseVersion: committed?.version ?? 0,
                    version: object.hasValueEdits ? version : object.currentVersion,
                    originalAttributes: originalAttributes, originalToOne: originalToOne, authors: authors))
        }
        changes.deleted = deletedSet.sorted(by: { $0.objectID < $1.objectID }).map { object in
            ChangeSet.Deletion(
                objectID: object.objectID, baseVersion: object.committed?.version ?? 0,
                author: object.appliedAuthor ?? author)
        }
        return changes
    }

    /// After a successful save: folds changes into the committed values (at their new versions) and forgets deleted objects.
    ///
    /// `inserted` and `changed` are the objects `changes` was made from, in the same order.
    func markSaved(_ changes: ChangeSet, inserted: [ManagedObject], changed: [ManagedObject]) {
        for (object, insertion) in zip(inserted, changes.inserted) {
            object.committed = insertion.snapshot
            markClean(object)
        }
        for (object, update) in zip(changed, changes.updated) {
            if object.committed != nil {
                var snapshot = currentSnapshot(of: object)
                snapshot.version = update.version
                object.committed = snapshot
            }
            markClean(object)
        }
        for object in deletedSet {
            registered.removeValue(forKey: object.objectID)
            object.owner = nil
        }
        for object in discarded {
            registered.removeValue(forKey: object.objectID)
            object.owner = nil
        }
        insertedSet = []
        insertionOrder = []
        changedSet = []
        deletedSet = []
        discarded = []
    }

    /// Folds an object's to-many deltas into its bases and forgets its unsaved changes (they were saved).
    private func markClean(_ object: ManagedObject) {
        for (key, delta) in object.toManyDeltas {
            if let base = object.toManyBase[key] {
                object.toManyBase[key] = delta.applied(to: base)
            }
        }
        object.attributeChanges = [:]
        object.toOneChanges = [:]
        object.toManyDeltas = [:]
        object.isInsertedFlag = false
        object.resetSaveState()
    }
}
