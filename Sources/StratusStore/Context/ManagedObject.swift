/// An object of the graph, registered in one context and used only on that context's queue.
///
/// Read and write properties by name; values are checked against the model:
///
/// ```swift
/// try await context.perform { context in
///     let author = context.insert(entity: "Author")
///     let book = context.insert(entity: "Book")
///     book.setValue("Dune", forKey: "title")
///     book.setValue(author, forKey: "author")         // also adds the book to author.books
///     let title: String? = book.value(forKey: "title", as: String.self)
///     try context.save()
/// }
/// ```
///
/// An object fetched or looked up by ID may be a *fault*: its values are loaded the first
/// time a property is read. Related objects are faults until used.
///
/// A managed object is not `Sendable`: it must not leave its context. Pass its
/// ``objectID`` instead and look the object up with ``ObjectContext/object(with:)`` in
/// the other context. Touching it off its context's queue stops the program with a message
/// naming the context.
public final class ManagedObject: Hashable, CustomStringConvertible {
    let entityInfo: Entity
    /// The object's identity: temporary until its context saves, then permanent.
    public internal(set) var objectID: ObjectID
    weak var owner: ObjectContext?
    /// The context the object was made in; set once, never written again, so any thread may read it.
    private weak var home: ObjectContext?

    // State, touched only on the owner's queue.
    var committed: Snapshot?
    var attributeChanges: [Int: AttributeValue?] = [:]
    var toOneChanges: [Int: ObjectID?] = [:]
    var toManyBase: [String: Set<ObjectID>] = [:]
    var toManyDeltas: [String: ToManyDelta] = [:]
    var isInsertedFlag = false
    var isDeletedFlag = false
    var isInaccessible = false
    // Optimistic locking and history, touched only on the owner's queue.
    /// The version of the values a child saved into this context, if one did since the last save or refresh.
    var appliedVersion: Int64?
    /// Whether this context itself changed attributes or to-one relationships since its last save (a save gives them a new version).
    var hasValueEdits = false
    /// The transaction author of each property changed by a child's save (keys this context changed itself are absent,
    /// but on a child's insertion, where they carry this context's author: the insertion's author did not make them).
    var keyAuthors: [String: String?] = [:]
    /// The author of a child's insertion or deletion applied here; `nil` when this context made it.
    var appliedAuthor: String??
    /// The batch of a fetch with a batch size this fault belongs to: its values load with the batch's.
    var faultBatch: FaultBatch?
    /// The owner's notification generation when the object was inserted (its insertion notice covers changes until then).
    var insertionGeneration = -1

    /// Forgets the version and author bookkeeping of unsaved changes (after a save, rollback or refresh).
    func resetSaveState() {
        appliedVersion = nil
        hasValueEdits = false
        keyAuthors = [:]
        appliedAuthor = nil
    }

    /// The version of the values as this context holds them: what its children's saves are checked against.
    var currentVersion: Int64 { appliedVersion ?? committed?.version ?? 0 }

    init(entity: Entity, objectID: ObjectID, owner: ObjectContext) {
        entityInfo = entity
        self.objectID = objectID
        self.owner = owner
        self.home = owner
    }

    /// The entity of the object.
    public var entity: EntityDescription { entityInfo.description }

    /// The context the object belongs to, or `nil` once it was saved as deleted, rolled back after insertion, or its context was reset.
    public var context: ObjectContext? { owner }

    /// The context the object was made in, for reaching its queue from another thread: unlike every
    /// other member it may be read anywhere, since it never changes (it is `nil` once that context
    /// is gone). The sync framework hops to this queue to read and write the object.
    ///
    /// ```swift
    /// import StratusStore
    ///
    /// func mayTouch(_ note: ManagedObject) -> Bool {
    ///     note.homeContext?.isOnQueue ?? false  // asked from any thread: is this the object's queue?
    /// }
    /// ```
    public var homeContext: ObjectContext? { home }

    var hasPropertyChanges: Bool {
        !attributeChanges.isEmpty || !toOneChanges.isEmpty || !toManyDeltas.isEmpty
    }

    // MARK: State

    /// Whether the object was inserted in its context and not saved yet.
    public var isInserted: Bool {
        _ = checkedContext(#function)
        return isInsertedFlag && !isDeletedFlag
    }

    /// Whether the object was saved before and has unsaved changes.
    public var isUpdated: Bool {
        _ = checkedContext(#function)
        return !isInsertedFlag && !isDeletedFlag && hasPropertyChanges
    }

    /// Whether the object was deleted (and, once the deletion is saved, is no longer in the context).
    public var isDeleted: Bool {
        if owner == nil { return isDeletedFlag }
        _ = checkedContext(#function)
        return isDeletedFlag
    }

    /// Whether the object's values have not been loaded yet.
    public var isFault: Bool {
        _ = checkedContext(#function)
        return committed == nil && !isInsertedFlag
    }

    /// Whether the object has unsaved changes: inserted, updated or deleted.
    public var hasChanges: Bool {
        _ = checkedContext(#function)
        return isInsertedFlag || isDeletedFlag || hasPropertyChanges
    }

    // MARK: Values

    /// The value of an attribute or relationship.
    ///
    /// Attributes give their Swift value (`String`, `Int16`, `Int32`, `Int64`, `Double`,
    /// `Decimal`, `Bool`, `Date`, `Data`, `UUID`, `URL`) or `nil`; a to-one relationship gives
    /// a ``ManagedObject`` or `nil`; a to-many relationship gives a `Set<ManagedObject>`.
    /// Fires the fault if the object's values are not loaded yet.
    ///
    /// - Parameter key: The name of an attribute or relationship of the entity (a wrong name stops the program).
    /// - Returns: The value.
    public func value(forKey key: String) -> Any? {
        checkedContext(#function).value(of: self, forKey: key)
    }

    /// The value of an attribute or relationship, cast to `type`.
    ///
    /// ```swift
    /// let title = book.value(forKey: "title", as: String.self)
    /// let author = book.value(forKey: "author", as: ManagedObject.self)
    /// ```
    ///
    /// - Parameters:
    ///   - key: The name of an attribute or relationship.
    ///   - type: The expected type; a value of another type stops the program.
    /// - Returns: The value, or `nil` when it is unset.
    public func value<Value>(forKey key: String, as type: Value.Type) -> Value? {
        guard let value = value(forKey: key) else { return nil }
        guard let typed = value as? Value else {
            preconditionFailure("\(entityInfo.name).\(key) holds a \(Swift.type(of: value)), not a \(Value.self)")
        }
        return typed
    }

    /// The value of an attribute, tagged with its type.
    ///
    /// - Parameter key: The name of an attribute.
    /// - Returns: The value, or `nil` when it is unset.
    public func attributeValue(forKey key: String) -> AttributeValue? {
        let context = checkedContext(#function)
        guard case .attribute(let index, _) = entityInfo.property(key) else {
            preconditionFailure("\"\(entityInfo.name).\(key)\" is a relationship; use value(forKey:) or objectIDs(forKey:)")
        }
        return context.attribute(of: self, at: index)
    }

    /// The IDs of the objects in a relationship, without faulting the objects themselves.
    ///
    /// - Parameter key: The name of a to-one or to-many relationship.
    /// - Returns: The related objects' IDs (empty for an empty to-one).
    public func objectIDs(forKey key: String) -> Set<ObjectID> {
        let context = checkedContext(#function)
        switch entityInfo.property(key) {
        case .toOne(let index, _): return context.toOneID(of: self, at: index).map { [$0] } ?? []
        case .toMany(let relationship): return context.toManyIDs(of: self, relationship)
        case .attribute: preconditionFailure("\"\(entityInfo.name).\(key)\" is an attribute, not a relationship")
        }
    }

    /// Sets an attribute or relationship, keeping inverse relationships in step.
    ///
    /// An attribute takes its Swift type, `nil`, or an ``AttributeValue`` (integers of any
    /// width convert when the value fits); a to-one relationship takes a ``ManagedObject`` of
    /// the destination entity from the same context, or `nil`; a to-many relationship takes
    /// a `Set<ManagedObject>` or `[ManagedObject]`. Anything else stops the program with a
    /// message naming the key and the expected type.
    ///
    /// - Parameters:
    ///   - value: The new value.
    ///   - key: The name of an attribute or relationship.
    public func setValue(_ value: Any?, forKey key: String) {
        checkedContext(#function).setValue(value, of: self, forKey: key)
    }

    /// Adds an object to a to-many relationship (and sets the inverse).
    ///
    /// - Parameters:
    ///   - object: An object of the destination entity, in the same context.
    ///   - key: The name of a to-many relationship.
    public func addObject(_ object: ManagedObject, forKey key: String) {
        let context = checkedContext(#function)
        let relationship = context.toManyRelationship(of: self, key)
        context.link(self, relationship, context.checkedRelated(object, for: relationship))
    }

    /// Removes an object from a to-many relationship (and clears the inverse).
    ///
    /// - Parameters:
    ///   - object: An object of the destination entity, in the same context.
    ///   - key: The name of a to-many relationship.
    public func removeObject(_ object: ManagedObject, forKey key: String) {
        let context = checkedContext(#function)
        let relationship = context.toManyRelationship(of: self, key)
        context.unlink(self, relationship, context.checkedRelated(object, for: relationship))
    }

    /// The properties changed since the last save, with their new values.
    ///
    /// For an inserted object: every property that has a value. To-many relationships give
    /// their whole new set of IDs.
    ///
    /// - Returns: The changed properties by name.
    public func changedValues() -> [String: PropertyValue] {
        checkedContext(#function).changedValues(of: self)
    }

    /// The values as last saved (or loaded from the parent context), ignoring unsaved changes.
    ///
    /// Empty for an inserted object.
    ///
    /// - Parameter keys: The properties wanted, or `nil` for all of them.
    /// - Returns: The values by name.
    public func committedValues(forKeys keys: [String]?) -> [String: PropertyValue] {
        checkedContext(#function).committedValues(of: self, forKeys: keys)
    }

    // MARK: Identity

    /// Objects are equal only to themselves.
    ///
    /// - Parameters:
    ///   - lhs: An object.
    ///   - rhs: Another object.
    /// - Returns: Whether they are the same instance.
    public static func == (lhs: ManagedObject, rhs: ManagedObject) -> Bool {
        lhs === rhs
    }

    /// Hashes the object's identity.
    ///
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }

    /// The entity and ID, such as `<Book Book/p3>`.
    public var description: String {
        "<\(entityInfo.name) \(objectID)\(isDeletedFlag ? " deleted" : "")>"
    }

    // MARK: Confinement

    /// The owning context, after checking that the caller is on its queue.
    func checkedContext(_ function: String) -> ObjectContext {
        guard let context = owner else {
            preconditionFailure(
                "\(function) on \(objectID), which is no longer in a context: its deletion was saved, its insertion "
                    + "rolled back, or its context reset or released. Look it up again with context.object(with:).")
        }
        context.checkOnQueue("\(function) on \(objectID)")
        return context
    }
}

/// The objects of one batch of a fetch with ``FetchRequest/fetchBatchSize``, which load their values together.
final class FaultBatch {
    let ids: [ObjectID]

    init(ids: [ObjectID]) {
        self.ids = ids
    }
}

@available(*, unavailable, message: "A managed object is confined to its context; pass its objectID to other contexts")
extension ManagedObject: Sendable {}
