extension ObjectContext {
    // MARK: Inserting, looking up, deleting

    /// Inserts a new object of an entity, with the attributes' default values and a temporary ID.
    ///
    /// ```swift
    /// let author = context.insert(entity: "Author")
    /// author.setValue("Ursula K. Le Guin", forKey: "name")
    /// ```
    ///
    /// - Parameter entityName: The name of an entity of the model (an unknown name stops the program).
    /// - Returns: The new object, registered in the context.
    public func insert(entity entityName: String) -> ManagedObject {
        checkOnQueue("insert(entity: \"\(entityName)\")")
        let entity = model.entity(entityName)
        let object = ManagedObject(entity: entity, objectID: .temporary(entityName), owner: self)
        object.committed = entity.insertionSnapshot
        for relationship in entity.toManyRelationships {
            object.toManyBase[relationship.name] = []
        }
        object.isInsertedFlag = true
        object.hasValueEdits = true
        registered[object.objectID] = object
        insertedSet.insert(object)
        insertionOrder.append(object)
        if isObserved { pendingInserted.insert(object.objectID) }
        object.insertionGeneration = notificationGeneration
        return object
    }

    /// The context's object for an ID: the one already registered, or a new fault.
    ///
    /// Uniquing: the context holds one object per ID, so two calls return the same instance.
    /// Does no I/O; the values load when a property is first read. If no object has the ID,
    /// reading gives `nil` values; use ``existingObject(with:)`` to check.
    ///
    /// A temporary ID resolves only in the context that inserted the object and in its
    /// descendants, and only until that context saves; pass permanent IDs between contexts.
    ///
    /// - Parameter objectID: An object ID.
    /// - Returns: The object.
    public func object(with objectID: ObjectID) -> ManagedObject {
        checkOnQueue("object(with: \(objectID))")
        return registeredObject(objectID)
    }

    /// The context's object for an ID, loaded and checked to exist.
    ///
    /// - Parameter objectID: An object ID.
    /// - Returns: The object, with its values loaded.
    /// - Throws: ``StoreError`` with ``StoreError/Code/objectNotFound`` if no object has the ID
    ///   (in this context, its ancestors or the store), or a store error.
    public func existingObject(with objectID: ObjectID) throws -> ManagedObject {
        checkOnQueue("existingObject(with: \(objectID))")
        let object = registeredObject(objectID)
        try fulfillFaults([object])
        guard !object.isInaccessible, !object.isDeletedFlag else {
            throw StoreError(
                code: .objectNotFound, message: "no object has the ID \(objectID)", entityName: objectID.entityName,
                objectID: objectID)
        }
        return object
    }

    /// Deletes an object, applying the delete rules of its relationships.
    ///
    /// ``DeleteRule/nullify`` removes the object from the related objects' inverse relationships,
    /// ``DeleteRule/cascade`` deletes the related objects too, ``DeleteRule/deny`` makes the next
    /// ``save()`` fail while related objects remain, ``DeleteRule/noAction`` does nothing.
    /// Deleting an object inserted since the last save simply discards it.
    ///
    /// - Parameter object: An object of this context.
    public func delete(_ object: ManagedObject) {
        checkOnQueue("delete(\(object.objectID))")
        precondition(
            object.owner === self,
            "delete(\(object.objectID)) on context \"\(name)\": the object belongs to "
                + "\(object.owner.map { "context \"\($0.name)\"" } ?? "no context")")
        deleteObject(object)
    }

    func registeredObject(_ objectID: ObjectID) -> ManagedObject {
        if let object = registered[objectID] { return object }
        let object = ManagedObject(entity: model.entity(objectID.entityName), objectID: objectID, owner: self)
        registered[objectID] = object
        return object
    }

    func deleteObject(_ object: ManagedObject) {
        guard !object.isDeletedFlag else { return }
        object.isDeletedFlag = true
        pendingDeleted.insert(object.objectID)
        if object.isInsertedFlag {
            insertedSet.remove(object)
            discarded.append(object)
        } else {
            changedSet.remove(object)
            deletedSet.insert(object)
        }
        let entity = object.entityInfo
        for relationship in entity.toOneRelationships + entity.toManyRelationships {
            switch relationship.deleteRule {
            case .nullify:
                guard let inverse = inverse(of: relationship) else { continue }
                for id in relatedIDs(of: object, relationship) {
                    primitiveRemove(registeredObject(id), inverse, object.objectID)
                }
            case .cascade:
                for id in relatedIDs(of: object, relationship) {
                    deleteObject(registeredObject(id))
                }
            case .deny, .noAction:
                break
            }
        }
    }

    // MARK: Reading values

    func value(of object: ManagedObject, forKey key: String) -> Any? {
        switch object.entityInfo.property(key) {
        case .attribute(let index, _):
            return attribute(of: object, at: index)?.swiftValue
        case .toOne(let index, _):
            return toOneID(of: object, at: index).map(registeredObject)
        case .toMany(let relationship):
            return Set(toManyIDs(of: object, relationship).map(registeredObject))
        }
    }

    func attribute(of object: ManagedObject, at index: Int) -> AttributeValue? {
        if let change = object.attributeChanges[index] { return change }
        if object.committed == nil { fireFault(object) }
        return object.committed?.attributes[index] ?? nil
    }

    func toOneID(of object: ManagedObject, at index: Int) -> ObjectID? {
        if let change = object.toOneChanges[index] { return change }
        if object.committed == nil { fireFault(object) }
        return object.committed?.toOne[index] ?? nil
    }

    func toManyIDs(of object: ManagedObject, _ relationship: Relationship) -> Set<ObjectID> {
        let base: Set<ObjectID>
        if let loaded = object.toManyBase[relationship.name] {
            base = loaded
        } else {
            do {
                base = try ancestorRelatedIDs(of: object.objectID, relationship)
            } catch {
                preconditionFailure("could not load \(object.objectID).\(relationship.name) in context \"\(name)\": \(error)")
            }
            object.toManyBase[relationship.name] = base
        }
        return object.toManyDeltas[relationship.name]?.applied(to: base) ?? base
    }

    /// The IDs in a relationship of either kind.
    func relatedIDs(of object: ManagedObject, _ relationship: Relationship) -> Set<ObjectID> {
        if relationship.isToMany { return toManyIDs(of: object, relationship) }
        return toOneID(of: object, at: toOneIndex(relationship)).map { [$0] } ?? []
    }

    /// The object's values as this context sees them; its values must be loaded.
    func currentSnapshot(of object: ManagedObject) -> Snapshot {
        guard var snapshot = object.committed else {
            preconditionFailure("currentSnapshot of the fault \(object.objectID)")
        }
        snapshot.version = object.currentVersion
        for (index, value) in object.attributeChanges {
            snapshot.attributes[index] = value
        }
        for (index, value) in object.toOneChanges {
            snapshot.toOne[index] = value
        }
        return snapshot
    }

    func changedValues(of object: ManagedObject) -> [String: PropertyValue] {
        let entity = object.entityInfo
        var values: [String: PropertyValue] = [:]
        if object.isInsertedFlag {
            let snapshot = currentSnapshot(of: object)
            for (index, attribute) in entity.attributes.enumerated() where snapshot.attributes[index] != nil {
                values[attribute.name] = .attribute(snapshot.attributes[index])
            }
            for (index, relationship) in entity.toOneRelationships.enumerated() where snapshot.toOne[index] != nil {
                values[relationship.name] = .toOne(snapshot.toOne[index])
            }
            for relationship in entity.toManyRelationships {
                let members = toManyIDs(of: object, relationship)
                if !members.isEmpty { values[relationship.name] = .toMany(members) }
            }
            return values
        }
        for (index, value) in object.attributeChanges {
            values[entity.attributes[index].name] = .attribute(value)
        }
        for (index, value) in object.toOneChanges {
            values[entity.toOneRelationships[index].name] = .toOne(value)
        }
        for relationship in entity.toManyRelationships where object.toManyDeltas[relationship.name] != nil {
            values[relationship.name] = .toMany(toManyIDs(of: object, relationship))
        }
        return values
    }

    func committedValues(of object: ManagedObject, forKeys keys: [String]?) -> [String: PropertyValue] {
        guard !object.isInsertedFlag else { return [:] }
        let entity = object.entityInfo
        if object.committed == nil { fireFault(object) }
        guard let snapshot = object.committed else { return [:] }
        let names = keys ?? Array(entity.properties.keys)
        var values: [String: PropertyValue] = [:]
        for key in names {
            switch entity.property(key) {
            case .attribute(let index, _): values[key] = .attribute(snapshot.attributes[index])
            case .toOne(let index, _): values[key] = .toOne(snapshot.toOne[index])
            case .toMany(let relationship):
                if object.toManyBase[relationship.name] == nil { _ = toManyIDs(of: object, relationship) }
                values[key] = .toMany(object.toManyBase[relationship.name] ?? [])
            }
        }
        return values
    }

    // MARK: Writing values

    func setValue(_ value: Any?, of object: ManagedObject, forKey key: String) {
        let entity = object.entityInfo
        switch entity.property(key) {
        case .attribute(let index, let attribute):
            guard let value else {
                writeAttribute(nil, of: object, at: index)
                markEdited(object, key: key, versioned: true)
                return
            }
            guard let converted = AttributeValue(converting: value, to: attribute.type) else {
                preconditionFailure(
                    "setValue(_:forKey: \"\(key)\") on \(object.objectID): \(entity.name).\(key) is a \(attribute.type) "
                        + "attribute and cannot hold the \(type(of: value)) \(value)")
            }
            writeAttribute(converted, of: object, at: index)
            markEdited(object, key: key, versioned: true)
        case .toOne(let index, let relationship):
            guard let value else {
                if let current = toOneID(of: object, at: index) {
                    unlink(object, relationship, registeredObject(current))
                }
                return
            }
            guard let target = value as? ManagedObject else {
                preconditionFailure(
                    "setValue(_:forKey: \"\(key)\") on \(object.objectID): \(entity.name).\(key) is a to-one relationship "
                        + "and takes a ManagedObject or nil, not a \(type(of: value))")
            }
            link(object, relationship, checkedRelated(target, for: relationship))
        case .toMany(let relationship):
            let targets: [ManagedObject]
            switch value {
            case nil: targets = []
            case let set as Set<ManagedObject>: targets = Array(set)
            case let array as [ManagedObject]: targets = array
            default:
                preconditionFailure(
                    "setValue(_:forKey: \"\(key)\") on \(object.objectID): \(entity.name).\(key) is a to-many relationship "
                        + "and takes a Set<ManagedObject> or [ManagedObject], not a \(type(of: value))")
            }
            let wanted = Set(targets.map { checkedRelated($0, for: relationship).objectID })
            let current = toManyIDs(of: object, relationship)
            for id in current.subtracting(wanted) {
                unlink(object, relationship, registeredObject(id))
            }
            for target in targets where !current.contains(target.objectID) {
                link(object, relationship, target)
            }
        }
    }

    func toManyRelationship(of object: ManagedObject, _ key: String) -> Relationship {
        guard case .toMany(let relationship) = object.entityInfo.property(key) else {
            preconditionFailure("\"\(object.entityInfo.name).\(key)\" is not a to-many relationship")
        }
        return relationship
    }

    /// `object`, after checking it can be related through `relationship` from an object of this context.
    func checkedRelated(_ object: ManagedObject, for relationship: Relationship) -> ManagedObject {
        precondition(
            object.owner === self,
            "cannot relate \(object.objectID) to an object of context \"\(name)\" through "
                + "\(relationship.sourceEntityName).\(relationship.name): it belongs to "
                + "\(object.owner.map { "context \"\($0.name)\"" } ?? "no context"); use object(with:) to get this context's copy")
        precondition(
            object.entityInfo.name == relationship.destinationEntityName,
            "\(relationship.sourceEntityName).\(relationship.name) holds \(relationship.destinationEntityName) objects, "
                + "not \(object.entityInfo.name)")
        return object
    }

    // MARK: Relationship maintenance

    func inverse(of relationship: Relationship) -> Relationship? {
        relationship.inverseName.map { model.entity(relationship.destinationEntityName).relationship($0) }
    }

    func toOneIndex(_ relationship: Relationship) -> Int {
        guard case .toOne(let index, _) = model.entity(relationship.sourceEntityName).property(relationship.name) else {
            preconditionFailure("\(relationship.sourceEntityName).\(relationship.name) is not a to-one relationship")
        }
        return index
    }

    /// Relates `target` to `object` through `relationship`, and `object` to `target` through the inverse.
    ///
    /// A to-one side first lets go of the object it held, so both ends stay consistent.
    func link(_ object: ManagedObject, _ relationship: Relationship, _ target: ManagedObject) {
        if !relationship.isToMany, let current = toOneID(of: object, at: toOneIndex(relationship)) {
            if current == target.objectID { return }
            unlink(object, relationship, registeredObject(current))
        }
        let inverse = inverse(of: relationship)
        if let inverse, !inverse.isToMany, let other = toOneID(of: target, at: toOneIndex(inverse)),
            other != object.objectID
        {
            unlink(target, inverse, registeredObject(other))
        }
        primitiveAdd(object, relationship, target.objectID)
        if let inverse {
            primitiveAdd(target, inverse, object.objectID)
        }
    }

    /// Removes `target` from `relationship` of `object`, and `object` from the inverse of `target`.
    func unlink(_ object: ManagedObject, _ relationship: Relationship, _ target: ManagedObject) {
        primitiveRemove(object, relationship, target.objectID)
        if let inverse = inverse(of: relationship) {
            primitiveRemove(target, inverse, object.objectID)
        }
    }

    func primitiveAdd(_ object: ManagedObject, _ relationship: Relationship, _ id: ObjectID) {
        if relationship.isToMany {
            object.toManyDeltas[relationship.name, default: ToManyDelta()].add(id)
        } else {
            writeToOne(id, of: object, at: toOneIndex(relationship))
        }
        markEdited(object, key: relationship.name, versioned: !relationship.isToMany)
    }

    /// Sets an attribute: straight into the values of an inserted object (which has nothing committed
    /// to compare with), as a change of a saved one.
    func writeAttribute(_ value: AttributeValue?, of object: ManagedObject, at index: Int) {
        if object.isInsertedFlag, object.committed != nil {
            if !object.attributeChanges.isEmpty { object.attributeChanges.removeValue(forKey: index) }
            object.committed?.attributes[index] = value
        } else {
            object.attributeChanges[index] = .some(value)
        }
    }

    /// Sets a to-one reference, as ``writeAttribute(_:of:at:)`` sets an attribute.
    func writeToOne(_ id: ObjectID?, of object: ManagedObject, at index: Int) {
        if object.isInsertedFlag, object.committed != nil {
            if !object.toOneChanges.isEmpty { object.toOneChanges.removeValue(forKey: index) }
            object.committed?.toOne[index] = id
        } else {
            object.toOneChanges[index] = .some(id)
        }
    }

    func primitiveRemove(_ object: ManagedObject, _ relationship: Relationship, _ id: ObjectID) {
        if relationship.isToMany {
            object.toManyDeltas[relationship.name, default: ToManyDelta()].remove(id)
        } else {
            let index = toOneIndex(relationship)
            guard toOneID(of: object, at: index) == id else { return }
            writeToOne(nil, of: object, at: index)
        }
        markEdited(object, key: relationship.name, versioned: !relationship.isToMany)
    }

    /// Records an edit made in this context (not applied from a child): the key's author becomes this
    /// context's, and a changed attribute or to-one relationship gives the object a new version at the next save.
    func markEdited(_ object: ManagedObject, key: String, versioned: Bool) {
        if versioned { object.hasValueEdits = true }
        if object.isInsertedFlag, object.appliedAuthor != nil {
            // A child's insertion edited here: the key is this context's author's, not the insertion's.
            object.keyAuthors[key] = .some(transactionAuthor)
        } else if !object.keyAuthors.isEmpty {
            object.keyAuthors.removeValue(forKey: key)
        }
        markChanged(object)
    }

    func markChanged(_ object: ManagedObject) {
        // An insertion not announced yet is announced as such; the update notice would be dropped anyway.
        if object.isInsertedFlag && object.insertionGeneration == notificationGeneration { return }
        if isObserved { pendingUpdated.insert(object.objectID) }
        if !object.isInsertedFlag && !object.isDeletedFlag {
            changedSet.insert(object)
        }
    }
}
