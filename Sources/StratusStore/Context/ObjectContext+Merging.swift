import StratusLogging

extension ObjectContext {
    // MARK: Applying a child's save

    /// Applies a child's saved changes as unsaved changes of this context, after checking their versions. Runs on this context's queue.
    ///
    /// With ``MergePolicy/error`` a conflict throws before anything changes; the other
    /// policies resolve each conflict and report it so the child refreshes the object.
    func apply(_ changes: ChangeSet, from child: ObjectContext?) throws -> SaveOutcome {
        let conflicts = try conflicts(of: changes)
        let sortedConflicts = conflicts.values.sorted { $0.objectID < $1.objectID }
        if !conflicts.isEmpty && changes.mergePolicy == .error {
            throw StoreError.mergeConflict(sortedConflicts, saving: child?.name ?? "a context", into: name)
        }
        applyInsertions(changes.inserted)
        for var update in changes.updated {
            guard isKnown(update.objectID) else { continue }
            let object = registeredObject(update.objectID)
            if let conflict = conflicts[update.objectID] {
                guard
                    let resolved = Self.resolve(
                        update, conflict, changes.mergePolicy,
                        current: { index in
                            self.attribute(of: object, at: index)
                        }, currentToOne: { index in self.toOneID(of: object, at: index) })
                else { continue }
                update = resolved
            }
            guard !object.isDeletedFlag, !object.isInaccessible else { continue }
            applyUpdate(update, to: object)
        }
        applyDeletions(changes.deleted, conflicts: conflicts, policy: changes.mergePolicy)
        let merged = MergedChanges(
            inserted: Set(changes.inserted.map(\.objectID)), updated: Set(changes.updated.map(\.objectID)),
            deleted: Set(changes.deleted.map(\.objectID)))
        notifyAutomergingChildren(merged, except: child)
        return SaveOutcome(resolvedConflicts: sortedConflicts)
    }

    /// The child's updates and deletions whose base version is not this context's (loaded first).
    private func conflicts(of changes: ChangeSet) throws -> [ObjectID: MergeConflict] {
        let checked = changes.updated.filter(\.changesValues).map(\.objectID) + changes.deleted.map(\.objectID)
        try fulfillFaults(checked.filter(isKnown).map(registeredObject))
        var conflicts: [ObjectID: MergeConflict] = [:]
        for update in changes.updated where update.changesValues && isKnown(update.objectID) {
            let object = registeredObject(update.objectID)
            if object.isDeletedFlag || object.isInaccessible {
                conflicts[update.objectID] = MergeConflict(
                    objectID: update.objectID, snapshotVersion: update.baseVersion, currentVersion: nil, isInStore: false)
            } else if object.currentVersion != update.baseVersion {
                conflicts[update.objectID] = MergeConflict(
                    objectID: update.objectID, snapshotVersion: update.baseVersion, currentVersion: object.currentVersion,
                    isInStore: false)
            }
        }
        for deletion in changes.deleted where isKnown(deletion.objectID) {
            let object = registeredObject(deletion.objectID)
            if !object.isDeletedFlag, !object.isInaccessible, object.currentVersion != deletion.baseVersion {
                conflicts[deletion.objectID] = MergeConflict(
                    objectID: deletion.objectID, snapshotVersion: deletion.baseVersion,
                    currentVersion: object.currentVersion, isInStore: false)
            }
        }
        return conflicts
    }

    /// Deletes the child's deleted objects here, except a conflicting one unless the policy is ``MergePolicy/objectTrump``.
    private func applyDeletions(_ deletions: [ChangeSet.Deletion], conflicts: [ObjectID: MergeConflict], policy: MergePolicy) {
        for deletion in deletions {
            guard isKnown(deletion.objectID) else { continue }
            if conflicts[deletion.objectID] != nil && policy != .objectTrump { continue }
            let object = registeredObject(deletion.objectID)
            guard !object.isDeletedFlag else { continue }
            object.isDeletedFlag = true
            object.appliedAuthor = .some(deletion.author)
            pendingDeleted.insert(deletion.objectID)
            if object.isInsertedFlag {
                insertedSet.remove(object)
                discarded.append(object)
            } else {
                changedSet.remove(object)
                deletedSet.insert(object)
            }
        }
    }

    private func applyInsertions(_ insertions: [ChangeSet.Insertion]) {
        registered.reserveCapacity(registered.count + insertions.count)
        let observed = isObserved
        for insertion in insertions {
            let object =
                registered[insertion.objectID]
                ?? ManagedObject(
                    entity: model.entity(insertion.objectID.entityName), objectID: insertion.objectID, owner: self)
            registered[insertion.objectID] = object
            object.committed = insertion.snapshot
            object.isInaccessible = false
            object.attributeChanges = [:]
            object.toOneChanges = [:]
            object.toManyDeltas = [:]
            object.resetSaveState()
            object.appliedAuthor = .some(insertion.author)
            object.keyAuthors = insertion.laterAuthors
            for relationship in object.entityInfo.toManyRelationships {
                object.toManyBase[relationship.name] = insertion.toMany[relationship.name] ?? []
            }
            object.isInsertedFlag = true
            if insertedSet.insert(object).inserted { insertionOrder.append(object) }
            if observed { pendingInserted.insert(object.objectID) }
            object.insertionGeneration = notificationGeneration
        }
    }

    private func applyUpdate(_ update: ChangeSet.Update, to object: ManagedObject) {
        object.attributeChanges.merge(update.attributes) { _, new in new }
        object.toOneChanges.merge(update.toOne) { _, new in new }
        for (key, delta) in update.toMany {
            object.toManyDeltas[key, default: ToManyDelta()].merge(delta)
        }
        if update.changesValues {
            object.appliedVersion = update.version
        }
        for (key, author) in update.authors {
            object.keyAuthors[key] = .some(author)
        }
        markChanged(object)
    }

    /// A conflicting update as the merge policy resolves it, or `nil` to drop it.
    ///
    /// - Parameters:
    ///   - current: The target's current value of an attribute.
    ///   - currentToOne: The target's current to-one reference.
    static func resolve(
        _ update: ChangeSet.Update, _ conflict: MergeConflict, _ policy: MergePolicy,
        current: (Int) -> AttributeValue?, currentToOne: (Int) -> ObjectID?
    ) -> ChangeSet.Update? {
        guard !conflict.wasDeleted else { return nil }
        switch policy {
        case .error, .rollback:
            return nil
        case .objectTrump:
            return update
        case .storeTrump:
            // Keep a change only where the target still has the value the change was made on.
            var resolved = update
            resolved.attributes = update.attributes.filter { index, _ in
                current(index) == (update.originalAttributes[index] ?? nil)
            }
            resolved.toOne = update.toOne.filter { index, _ in
                currentToOne(index) == (update.originalToOne[index] ?? nil)
            }
            return resolved
        }
    }

    /// Whether a child's change to `id` can apply here: a temporary ID this context no longer has
    /// names an object it has since saved under a permanent ID, so the change is dropped (and logged).
    func isKnown(_ id: ObjectID) -> Bool {
        guard id.isTemporaryID, registered[id] == nil else { return true }
        logger.warning(
            "dropped a child's change to an object whose temporary ID was replaced when this context saved; "
                + "save the parent before handing objects to children",
            metadata: ["context": name, "objectID": "\(id)"])
        return false
    }

    // MARK: Automatic merges

    /// Asks the children that merge automatically (but `except`) to take in `changes`, on their own queues, later.
    func notifyAutomergingChildren(_ changes: MergedChanges, except: ObjectContext?) {
        guard !changes.isEmpty else { return }
        for child in automergingChildren() where child !== except {
            child.enqueue { child in child.mergeChangesFromParent(changes) }
        }
    }

    /// Takes in a parent's saved changes as Core Data's automatic merge does: refreshes the registered
    /// objects that were updated or deleted (keeping their unsaved changes), and announces the
    /// insertions, the updates and the deletions of registered objects in the next objects-did-change;
    /// then passes the news on to its own automerging children.
    func mergeChangesFromParent(_ changes: MergedChanges) {
        var merged = MergedChanges(inserted: changes.inserted.filter { registered[$0] == nil })
        for id in changes.updated {
            guard let object = registered[id], !object.isInsertedFlag else { continue }
            refault(object, keepingChanges: true)
            merged.updated.insert(id)
        }
        for id in changes.deleted {
            guard let object = registered[id], !object.isInsertedFlag else { continue }
            refault(object, keepingChanges: true)
            merged.deleted.insert(id)
        }
        pendingInserted.formUnion(merged.inserted)
        pendingUpdated.formUnion(merged.updated)
        pendingDeleted.formUnion(merged.deleted)
        logger.debug(
            "merged changes from parent",
            metadata: [
                "context": name, "inserted": "\(merged.inserted.count)", "updated": "\(merged.updated.count)",
                "deleted": "\(merged.deleted.count)",
            ])
        notifyAutomergingChildren(merged, except: nil)
    }
}

/// What a context's save changed, as its automerging children take it in.
struct MergedChanges: Sendable {
    var inserted: Set<ObjectID> = []
    var updated: Set<ObjectID> = []
    var deleted: Set<ObjectID> = []

    var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}

extension StoreError {
    /// A ``Code/mergeConflict`` error listing `conflicts`.
    static func mergeConflict(_ conflicts: [MergeConflict], saving source: String, into target: String) -> StoreError {
        let shown = conflicts.prefix(10).map(\.description).joined(separator: "; ")
        let more = conflicts.count > 10 ? "; and \(conflicts.count - 10) more" : ""
        var error = StoreError(
            code: .mergeConflict,
            message: "saving \(source) into \(target) conflicts with changes saved meanwhile (merge policy error): "
                + shown + more,
            objectID: conflicts.first?.objectID)
        error.conflicts = conflicts
        return error
    }
}
