/// How a save resolves conflicts: objects whose values changed in the parent context (or the store) since the saving context read them.
///
/// A conflict is detected with optimistic locking: every object's attribute and to-one
/// values carry a version, which each save that changes them replaces (the store keeps it
/// in the row's `Z_OPT` column). A save whose changes were made on an older version than
/// the parent's (or the store's) conflicts. Changes to to-many relationships are deltas
/// that merge (two contexts adding books to one author never conflict), so they do not
/// count. The policy is the saving context's ``ObjectContext/mergePolicy``:
///
/// ```swift
/// let background = container.newBackgroundContext()
/// background.mergePolicy = .objectTrump
/// ```
public enum MergePolicy: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The save fails with ``StoreError/Code/mergeConflict`` listing every conflict, and changes nothing (the default).
    case error
    /// Per property, the parent's (store's) value wins where it changed since the saving context read it;
    /// the saving context's other changes are saved. A conflicting deletion is dropped.
    case storeTrump
    /// The saving context's changed properties overwrite the parent's (store's); its other properties keep
    /// the parent's values. Changes to an object deleted meanwhile are dropped.
    case objectTrump
    /// The saving context's changes to conflicting objects are discarded; the rest is saved.
    case rollback

    /// The policy's name.
    public var description: String { rawValue }
}

/// An object that changed (or was deleted) in the parent context or the store since the saving context read it.
public struct MergeConflict: Sendable, Hashable, CustomStringConvertible {
    /// The conflicting object.
    public var objectID: ObjectID
    /// The version the saving context's changes were made on.
    public var snapshotVersion: Int64
    /// The parent's (or store's) version, or `nil` if the object was deleted there.
    public var currentVersion: Int64?
    /// Whether the conflict was found in the store (by the root context's save) rather than in a parent context.
    public var isInStore: Bool

    /// Makes a conflict description.
    ///
    /// - Parameters:
    ///   - objectID: The object.
    ///   - snapshotVersion: The version the changes were based on.
    ///   - currentVersion: The current version, `nil` if deleted.
    ///   - isInStore: Whether it was found in the store.
    public init(objectID: ObjectID, snapshotVersion: Int64, currentVersion: Int64?, isInStore: Bool) {
        self.objectID = objectID
        self.snapshotVersion = snapshotVersion
        self.currentVersion = currentVersion
        self.isInStore = isInStore
    }

    /// Whether the object was deleted in the parent or store.
    public var wasDeleted: Bool { currentVersion == nil }

    /// A phrase such as `Book/p3: changed from version 4 to 7 in the parent context`.
    public var description: String {
        let place = isInStore ? "the store" : "the parent context"
        guard let currentVersion else { return "\(objectID): deleted in \(place)" }
        return "\(objectID): changed from version \(snapshotVersion) to \(currentVersion) in \(place)"
    }
}
