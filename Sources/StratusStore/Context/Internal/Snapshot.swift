/// The attribute values and to-one relationships of an object, indexed as in its ``Entity``.
struct Snapshot: Sendable, Hashable {
    var attributes: [AttributeValue?]
    var toOne: [ObjectID?]
}

/// Added and removed members of a to-many relationship, kept disjoint.
struct ToManyDelta: Sendable, Hashable {
    var added: Set<ObjectID> = []
    var removed: Set<ObjectID> = []

    var isEmpty: Bool { added.isEmpty && removed.isEmpty }

    mutating func add(_ id: ObjectID) {
        removed.remove(id)
        added.insert(id)
    }

    mutating func remove(_ id: ObjectID) {
        added.remove(id)
        removed.insert(id)
    }

    /// Applies a later delta on top of this one.
    mutating func merge(_ later: ToManyDelta) {
        for id in later.removed { remove(id) }
        for id in later.added { add(id) }
    }

    /// `base` with the delta applied.
    func applied(to base: Set<ObjectID>) -> Set<ObjectID> {
        base.subtracting(removed).union(added)
    }
}

/// The changes a context pushes to its parent (or the root to the store) when it saves.
struct ChangeSet: Sendable {
    /// An object inserted since the last save, with all its values.
    struct Insertion: Sendable {
        var objectID: ObjectID
        var snapshot: Snapshot
        var toMany: [String: Set<ObjectID>]
    }

    /// The changed properties of an existing object.
    struct Update: Sendable {
        var objectID: ObjectID
        var attributes: [Int: AttributeValue?]
        var toOne: [Int: ObjectID?]
        var toMany: [String: ToManyDelta]
    }

    var inserted: [Insertion] = []
    var updated: [Update] = []
    var deleted: [ObjectID] = []

    var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}
