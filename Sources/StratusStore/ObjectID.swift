import Synchronization

/// The identity of a managed object: its entity and a key the store assigns; the only thing that crosses contexts.
///
/// An object inserted in a context has a *temporary* ID until the context saves; the
/// save replaces it with a *permanent* one (the store's primary key), which
/// ``ManagedObject/objectID`` then returns. Pass IDs, never objects, between contexts:
///
/// ```swift
/// let id = try await background.perform { context in
///     let note = context.insert(entity: "Note")
///     note.setValue("Hello", forKey: "text")
///     try context.save()
///     return note.objectID          // permanent after the save
/// }
/// try await container.viewContext.perform { context in
///     let note = context.object(with: id)
///     print(note.value(forKey: "text") ?? "")
/// }
/// ```
public struct ObjectID: Hashable, Sendable, Comparable, CustomStringConvertible {
    enum Key: Hashable, Sendable {
        case permanent(Int64)
        case temporary(UInt64)
    }

    /// The name of the object's entity.
    public let entityName: String
    let key: Key

    private static let nextTemporary = Atomic<UInt64>(1)

    init(entityName: String, key: Key) {
        self.entityName = entityName
        self.key = key
    }

    /// A new temporary ID, unique in this process.
    static func temporary(_ entityName: String) -> ObjectID {
        let (value, _) = nextTemporary.wrappingAdd(1, ordering: .relaxed)
        return ObjectID(entityName: entityName, key: .temporary(value))
    }

    /// The ID of the object stored with `primaryKey` in the entity's table.
    static func permanent(_ entityName: String, _ primaryKey: Int64) -> ObjectID {
        ObjectID(entityName: entityName, key: .permanent(primaryKey))
    }

    /// Whether the ID is temporary: the object has been inserted and not saved yet.
    public var isTemporaryID: Bool {
        if case .temporary = key { return true }
        return false
    }

    /// The store's primary key for the object, or `nil` for a temporary ID.
    public var primaryKey: Int64? {
        if case .permanent(let value) = key { return value }
        return nil
    }

    /// A stable text form of a permanent ID, `"Entity/p42"` (temporary IDs read `"Entity/t7"`).
    public var stringRepresentation: String {
        switch key {
        case .permanent(let value): "\(entityName)/p\(value)"
        case .temporary(let value): "\(entityName)/t\(value)"
        }
    }

    /// Reads the text form of a permanent ID made by ``stringRepresentation``.
    ///
    /// - Parameter stringRepresentation: Text such as `"Book/p12"`.
    /// - Returns: The ID, or `nil` if the text is not a permanent ID.
    public init?(stringRepresentation: String) {
        guard let slash = stringRepresentation.lastIndex(of: "/") else { return nil }
        let entity = stringRepresentation[..<slash]
        let rest = stringRepresentation[stringRepresentation.index(after: slash)...]
        guard !entity.isEmpty, rest.first == "p", let value = Int64(rest.dropFirst()) else { return nil }
        self.init(entityName: String(entity), key: .permanent(value))
    }

    /// Hashes the key only: keys are unique within an entity (temporary ones within the process), and
    /// hashing the entity's name too would cost more than the rare collision of equal keys across entities.
    ///
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) {
        switch key {
        case .permanent(let value): hasher.combine(value)
        case .temporary(let value): hasher.combine(~value)
        }
    }

    /// The text form, as ``stringRepresentation``.
    public var description: String { stringRepresentation }

    /// Orders IDs by entity, then permanent keys before temporary ones, then by key: a stable order for ties in sorting.
    ///
    /// - Parameters:
    ///   - lhs: An ID.
    ///   - rhs: Another ID.
    /// - Returns: Whether `lhs` sorts first.
    public static func < (lhs: ObjectID, rhs: ObjectID) -> Bool {
        if lhs.entityName != rhs.entityName { return lhs.entityName < rhs.entityName }
        switch (lhs.key, rhs.key) {
        case (.permanent(let left), .permanent(let right)): return left < right
        case (.temporary(let left), .temporary(let right)): return left < right
        case (.permanent, .temporary): return true
        case (.temporary, .permanent): return false
        }
    }
}
