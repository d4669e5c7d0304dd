/// The attribute values and to-one relationships of an object, indexed as in its ``Entity``, with their version.
///
/// The version names the values (attributes and to-one relationships; to-many deltas
/// merge and do not count): every save that changes them gives them a new number from
/// the store's counter, and the store keeps the latest in the row's `Z_OPT` column.
/// Optimistic locking compares the version a change was based on with the current one.
struct Snapshot: Sendable, Hashable {
    var attributes: [AttributeValue?]
    var toOne: [ObjectID?]
    /// The version of these values; 0 for an object never saved.
    var version: Int64 = 0
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
    /// An object inserted since the last save, with all its values (`snapshot.version` is its new version).
    struct Insertion: Sendable {
        var objectID: ObjectID
        var snapshot: Snapshot
        var toMany: [String: Set<ObjectID>]
        /// The transaction author of the insertion.
        var author: String?
        /// The properties another author changed after the insertion reached this context, by name,
        /// with that author: recorded in the history as that author's update, so a history reader that
        /// skips the inserting author's transactions (sync skipping its own) still sees the edit.
        var laterAuthors: [String: String?] = [:]
    }

    /// The changed properties of an existing object.
    struct Update: Sendable {
        var objectID: ObjectID
        var attributes: [Int: AttributeValue?]
        var toOne: [Int: ObjectID?]
        var toMany: [String: ToManyDelta]
        /// The version the changes were made on; the target's must still be the same.
        var baseVersion: Int64
        /// The version of the values after the change.
        var version: Int64
        /// The committed values of the changed attributes and to-one relationships (for ``MergePolicy/storeTrump``).
        var originalAttributes: [Int: AttributeValue?]
        var originalToOne: [Int: ObjectID?]
        /// The transaction author of each changed property, by name.
        var authors: [String: String?]

        /// Whether attributes or to-one relationships change: only those are versioned, to-many deltas merge.
        var changesValues: Bool { !attributes.isEmpty || !toOne.isEmpty }
        var isEmpty: Bool { attributes.isEmpty && toOne.isEmpty && toMany.isEmpty }
    }

    /// A deleted object, with the version it was deleted at.
    struct Deletion: Sendable {
        var objectID: ObjectID
        var baseVersion: Int64
        var author: String?
    }

    var inserted: [Insertion] = []
    var updated: [Update] = []
    var deleted: [Deletion] = []
    /// How the target resolves conflicts: the merge policy of the saving context.
    var mergePolicy: MergePolicy = .error

    var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}

/// What a parent (or the store) did with a child's changes.
struct SaveOutcome: Sendable {
    /// Conflicts that the merge policy resolved; the saving context refreshes these objects.
    var resolvedConflicts: [MergeConflict] = []
    /// The history token of the last transaction written, for a root save.
    var historyToken: HistoryToken?
}
