extension ObjectContext {
    // MARK: Fetching

    /// The objects a request selects, as this context sees them: unsaved changes here and in the ancestors included.
    ///
    /// ```swift
    /// let request = FetchRequest(
    ///     entityName: "Book", predicate: PredicateKey<Int>("pages") > 300, sortDescriptors: [.ascending("title")])
    /// let books = try context.fetch(request)
    /// ```
    ///
    /// Objects already registered keep their identity and unsaved values (uniquing);
    /// the others are registered, with the values read by the query.
    ///
    /// - Parameter request: What to fetch.
    /// - Returns: The objects, in the request's order.
    /// - Throws: ``StoreError`` if the store cannot be read.
    public func fetch(_ request: FetchRequest) throws -> [ManagedObject] {
        checkOnQueue("fetch(\(request.entityName))")
        var plan = plan(request)
        if plan.isPureSQL {
            // SQL answers alone: register the rows as they come, without a second lookup per object.
            plan.query.limit = request.fetchLimit
            plan.query.offset = request.fetchOffset
            if request.fetchBatchSize > 0 {
                return try fetchInBatches(plan.query, batchSize: request.fetchBatchSize)
            }
            let rows = try coordinator.store().fetch(plan.query)
            registered.reserveCapacity(registered.count + rows.count)
            return rows.map { id, snapshot in prefill(id, snapshot) }
        }
        return try execute(request, mode: .objects).map(registeredObject)
    }

    /// Reads the IDs only, loads the first batch's values, and ties the other results to their batches.
    private func fetchInBatches(_ query: StoreQuery, batchSize: Int) throws -> [ManagedObject] {
        let ids = try coordinator.store().fetchIDs(query)
        let objects = ids.map(registeredObject)
        var start = batchSize
        while start < objects.count {
            let end = min(start + batchSize, objects.count)
            let batch = FaultBatch(ids: Array(ids[start..<end]))
            for object in objects[start..<end] where object.committed == nil && !object.isInaccessible {
                object.faultBatch = batch
            }
            start = end
        }
        try fulfillFaults(Array(objects.prefix(batchSize)))
        return objects
    }

    /// The values of some properties of the objects a request selects, as dictionaries, in its order.
    ///
    /// ```swift
    /// let rows = try context.fetchDictionaries(
    ///     FetchRequest(entityName: "Book", sortDescriptors: [.ascending("title")]), properties: ["title", "author"])
    /// // [["title": .attribute(.string("Dune")), "author": .toOne(Author/p1)], …]
    /// ```
    ///
    /// When SQL answers the request alone (no unsaved changes take part), the rows are read
    /// without registering objects in the context; otherwise the values are read from the
    /// context's objects, unsaved changes included.
    ///
    /// - Parameters:
    ///   - request: What to fetch.
    ///   - properties: Attributes and to-one relationships of the entity (a wrong name stops the program).
    /// - Returns: One dictionary per object, with a value for every property (`nil` ones included).
    /// - Throws: ``StoreError`` if the store cannot be read.
    public func fetchDictionaries(_ request: FetchRequest, properties: [String]) throws -> [[String: PropertyValue]] {
        checkOnQueue("fetchDictionaries(\(request.entityName))")
        let entity = model.entity(request.entityName)
        let columns = properties.map { key -> (String, Entity.Property) in
            let property = entity.property(key)
            if case .toMany = property {
                preconditionFailure("fetchDictionaries: \"\(entity.name).\(key)\" is a to-many relationship; fetch attributes and to-one relationships")
            }
            return (key, property)
        }
        var plan = plan(request)
        if plan.isPureSQL {
            plan.query.limit = request.fetchLimit
            plan.query.offset = request.fetchOffset
            return try coordinator.store().fetch(plan.query).map { _, snapshot in
                var row: [String: PropertyValue] = [:]
                for (key, property) in columns {
                    switch property {
                    case .attribute(let index, _): row[key] = .attribute(snapshot.attributes[index])
                    case .toOne(let index, _): row[key] = .toOne(snapshot.toOne[index])
                    case .toMany: break
                    }
                }
                return row
            }
        }
        let objects = try execute(request, mode: .objects).map(registeredObject)
        return objects.map { object in
            var row: [String: PropertyValue] = [:]
            for (key, property) in columns {
                switch property {
                case .attribute(let index, _): row[key] = .attribute(attribute(of: object, at: index))
                case .toOne(let index, _): row[key] = .toOne(toOneID(of: object, at: index))
                case .toMany: break
                }
            }
            return row
        }
    }

    /// The IDs of the objects a request selects, in its order.
    ///
    /// - Parameter request: What to fetch.
    /// - Returns: The object IDs.
    /// - Throws: ``StoreError`` if the store cannot be read.
    public func fetchObjectIDs(_ request: FetchRequest) throws -> [ObjectID] {
        checkOnQueue("fetchObjectIDs(\(request.entityName))")
        return try execute(request, mode: .objectIDs)
    }

    /// How many objects a request selects (after its offset and limit).
    ///
    /// - Parameter request: What to count.
    /// - Returns: The number of objects.
    /// - Throws: ``StoreError`` if the store cannot be read.
    public func count(for request: FetchRequest) throws -> Int {
        checkOnQueue("count(for: \(request.entityName))")
        if let count = try countInSQL(request) { return count }
        return try execute(request, mode: .objectIDs).count
    }

    // MARK: Pipeline

    enum FetchMode {
        case objects
        case objectIDs
    }

    /// The unsaved changes of a context and its ancestors, by ID only.
    struct ChainChanges: Sendable {
        var changed: [String: Set<ObjectID>] = [:]
        var deleted: Set<ObjectID> = []

        var isEmpty: Bool { changed.isEmpty && deleted.isEmpty }
        var entities: Set<String> { Set(changed.keys).union(deleted.map(\.entityName)) }
    }

    /// This context's unsaved changes and its ancestors', collected with one trip up the chain.
    func chainChanges() -> ChainChanges {
        var changes = parent?.performAndWait { parent in parent.chainChanges() } ?? ChainChanges()
        for object in insertedSet.union(changedSet) {
            changes.changed[object.objectID.entityName, default: []].insert(object.objectID)
        }
        for object in deletedSet {
            changes.deleted.insert(object.objectID)
        }
        for object in discarded {
            changes.deleted.insert(object.objectID)
        }
        return changes
    }

    fileprivate struct Plan {
        var entity: Entity
        var predicate: ResolvedPredicate?
        var sorts: [ResolvedSort]
        var chain: ChainChanges
        var query: StoreQuery
        var exact: Bool
        var sortedInSQL: Bool

        /// Whether SQL alone answers the request.
        var isPureSQL: Bool { chain.isEmpty && exact && sortedInSQL }
    }

    fileprivate func plan(_ request: FetchRequest) -> Plan {
        let entity = model.entity(request.entityName)
        let predicate = request.predicate.map { ResolvedPredicate($0, entity: entity, model: model) }
        let sorts = request.sortDescriptors.map { ResolvedSort($0, entity: entity, model: model) }
        let chain = request.includesPendingChanges ? chainChanges() : ChainChanges()
        var compiler = SQLPredicateCompiler(entity: entity, model: model, dirtyEntities: chain.entities)
        let (fragment, exact) = predicate.map { compiler.compile($0) } ?? (nil, true)
        let orderBy = compiler.orderBy(sorts)
        var query = StoreQuery(entity: entity)
        query.condition = fragment?.sql
        query.arguments = fragment?.arguments ?? []
        query.orderBy = orderBy ?? []
        query.joins = compiler.joins
        return Plan(
            entity: entity, predicate: predicate, sorts: sorts, chain: chain, query: query, exact: exact,
            sortedInSQL: orderBy != nil)
    }

    private func countInSQL(_ request: FetchRequest) throws -> Int? {
        var plan = plan(request)
        guard plan.isPureSQL else { return nil }
        plan.query.limit = request.fetchLimit
        plan.query.offset = request.fetchOffset
        return try coordinator.store().count(plan.query)
    }

    private func execute(_ request: FetchRequest, mode: FetchMode) throws -> [ObjectID] {
        var plan = plan(request)
        let store = try coordinator.store()
        if plan.isPureSQL {
            plan.query.limit = request.fetchLimit
            plan.query.offset = request.fetchOffset
            switch mode {
            case .objectIDs:
                return try store.fetchIDs(plan.query)
            case .objects:
                let rows = try store.fetch(plan.query)
                for (id, snapshot) in rows {
                    prefill(id, snapshot)
                }
                return rows.map(\.0)
            }
        }
        if !plan.chain.isEmpty {
            // Rows of objects changed in the chain are re-sorted in memory anyway.
            plan.query.orderBy = []
        }
        let rows = try store.fetch(plan.query)
        let changedHere = plan.chain.changed[plan.entity.name] ?? []
        var candidates: [ManagedObject] = []
        var seen: Set<ObjectID> = []
        for (id, snapshot) in rows where !plan.chain.deleted.contains(id) {
            if !changedHere.contains(id) { prefill(id, snapshot) }
            candidates.append(registeredObject(id))
            seen.insert(id)
        }
        for id in changedHere.sorted() where !seen.contains(id) && !plan.chain.deleted.contains(id) {
            candidates.append(registeredObject(id))
        }
        try fulfillFaults(candidates)
        var matching = candidates.filter { object in
            guard !object.isDeletedFlag, !object.isInaccessible else { return false }
            guard let predicate = plan.predicate else { return true }
            return matcher.evaluate(predicate, on: object) == true
        }
        if !(plan.chain.isEmpty && plan.sortedInSQL) {
            matching = matcher.sort(matching, by: plan.sorts)
        }
        var ids = matching.dropFirst(max(request.fetchOffset, 0)).map(\.objectID)
        if let limit = request.fetchLimit {
            ids = Array(ids.prefix(max(limit, 0)))
        }
        return ids
    }

    /// Registers the stored values of an object that has none loaded here (only for objects the chain has not changed).
    @discardableResult
    private func prefill(_ id: ObjectID, _ snapshot: Snapshot) -> ManagedObject {
        let object = registeredObject(id)
        if object.committed == nil && !object.isInaccessible {
            object.committed = snapshot
        }
        return object
    }

    /// Evaluates predicates and sorts on this context's objects in memory.
    var matcher: ObjectMatcher { ObjectMatcher(context: self) }

    // MARK: Typed objects

    /// Inserts a new object of a wrapper type's entity and wraps it.
    ///
    /// ```swift
    /// let book = context.insert(Book.self)
    /// book.title = "Dune"
    /// ```
    ///
    /// - Parameter type: The wrapper type.
    /// - Returns: The new object, wrapped.
    public func insert<Wrapper: ManagedObjectWrapper>(_ type: Wrapper.Type) -> Wrapper {
        Wrapper(object: insert(entity: Wrapper.entityName))
    }

    /// The context's object for an ID, wrapped (a fault until used; see ``object(with:)``).
    ///
    /// - Parameters:
    ///   - type: The wrapper type; an ID of another entity stops the program.
    ///   - objectID: An object ID.
    /// - Returns: The object, wrapped.
    public func object<Wrapper: ManagedObjectWrapper>(_ type: Wrapper.Type, with objectID: ObjectID) -> Wrapper {
        Wrapper(wrapping: object(with: objectID))
    }

    /// The context's object for an ID, loaded, checked to exist, and wrapped (see ``existingObject(with:)``).
    ///
    /// - Parameters:
    ///   - type: The wrapper type; an ID of another entity stops the program.
    ///   - objectID: An object ID.
    /// - Returns: The object, wrapped.
    /// - Throws: ``StoreError`` with ``StoreError/Code/objectNotFound`` if no object has the ID, or a store error.
    public func existingObject<Wrapper: ManagedObjectWrapper>(
        _ type: Wrapper.Type, with objectID: ObjectID
    ) throws
        -> Wrapper
    {
        Wrapper(wrapping: try existingObject(with: objectID))
    }

    /// The objects of a wrapper type's entity that meet a condition, in an order, wrapped.
    ///
    /// ```swift
    /// let books = try context.fetch(Book.self, where: PredicateKey<String>("author.name") == "Frank Herbert",
    ///                               sortedBy: [.ascending("title")])
    /// ```
    ///
    /// - Parameters:
    ///   - type: The wrapper type.
    ///   - predicate: The condition, or `nil` for every object.
    ///   - sortDescriptors: The order.
    ///   - limit: The most results, if any.
    /// - Returns: The objects, wrapped, as ``fetch(_:)`` finds them.
    /// - Throws: ``StoreError`` if the store cannot be read.
    public func fetch<Wrapper: ManagedObjectWrapper>(
        _ type: Wrapper.Type, where predicate: FetchPredicate? = nil,
        sortedBy sortDescriptors: [FetchRequest.SortDescriptor] = [], limit: Int? = nil
    ) throws -> [Wrapper] {
        try fetch(
            FetchRequest(for: type, predicate: predicate, sortDescriptors: sortDescriptors, fetchLimit: limit),
            as: type)
    }

    /// The objects a request selects, wrapped.
    ///
    /// - Parameters:
    ///   - request: What to fetch; its entity must be `type`'s (another stops the program, naming both).
    ///   - type: The wrapper type.
    /// - Returns: The objects, wrapped, as ``fetch(_:)`` finds them.
    /// - Throws: ``StoreError`` if the store cannot be read.
    public func fetch<Wrapper: ManagedObjectWrapper>(
        _ request: FetchRequest, as type: Wrapper.Type
    ) throws
        -> [Wrapper]
    {
        precondition(
            request.entityName == Wrapper.entityName,
            "fetch(_:as: \(Wrapper.self).self) with a request for entity \"\(request.entityName)\": "
                + "\(Wrapper.self) wraps entity \"\(Wrapper.entityName)\"")
        return try fetch(request).map { Wrapper(object: $0) }
    }

    /// The number of objects of a wrapper type's entity that meet a condition.
    ///
    /// - Parameters:
    ///   - type: The wrapper type.
    ///   - predicate: The condition, or `nil` for every object.
    /// - Returns: The number, as ``count(for:)`` finds it.
    /// - Throws: ``StoreError`` if the store cannot be read.
    public func count<Wrapper: ManagedObjectWrapper>(
        _ type: Wrapper.Type, where predicate: FetchPredicate? = nil
    )
        throws -> Int
    {
        try count(for: FetchRequest(for: type, predicate: predicate))
    }

    /// Deletes a wrapped object, applying delete rules (see ``delete(_:)``).
    ///
    /// - Parameter wrapper: A wrapped object of this context.
    public func delete<Wrapper: ManagedObjectWrapper>(_ wrapper: Wrapper) {
        delete(wrapper.object)
    }
}
