/// A relationship from one entity to another: to-one or to-many, with an inverse and a delete rule.
///
/// ```swift
/// // On Author:
/// RelationshipDescription.toMany("books", destination: "Book", inverse: "author", deleteRule: .cascade)
/// // On Book:
/// RelationshipDescription.toOne("author", destination: "Author", inverse: "books")
/// ```
///
/// Both sides of a relationship with an inverse are kept in step by the context: setting
/// `book.author` adds the book to `author.books`, and the other way round.
public struct RelationshipDescription: Sendable, Hashable {
    /// The relationship's name: letters, digits and `_`, starting with a letter.
    public var name: String
    /// The name of the entity at the other end.
    public var destinationEntityName: String
    /// Whether the relationship holds a set of objects rather than at most one.
    public var isToMany: Bool
    /// The name of the relationship on the destination that points back, or `nil` for none.
    public var inverseName: String?
    /// What deleting the source object does to the objects at the other end.
    public var deleteRule: DeleteRule
    /// Whether a to-one relationship may be empty when its object is saved (to-many relationships may always be empty).
    public var isOptional: Bool
    /// The relationship's name in the previous model version, if it was renamed (for lightweight migration).
    public var renamingIdentifier: String?

    /// Describes a relationship.
    ///
    /// - Parameters:
    ///   - name: The relationship's name.
    ///   - destination: The name of the destination entity.
    ///   - isToMany: `true` for a set of objects.
    ///   - inverse: The name of the inverse relationship on the destination, if any.
    ///   - deleteRule: What deleting the source does; ``DeleteRule/nullify`` by default.
    ///   - isOptional: Whether a to-one relationship may be `nil` at save; `true` by default.
    ///   - renamingIdentifier: The relationship's name in the previous model version, if it was renamed.
    public init(
        _ name: String, destination: String, isToMany: Bool, inverse: String?, deleteRule: DeleteRule = .nullify,
        isOptional: Bool = true, renamingIdentifier: String? = nil
    ) {
        self.renamingIdentifier = renamingIdentifier
        self.name = name
        destinationEntityName = destination
        self.isToMany = isToMany
        inverseName = inverse
        self.deleteRule = deleteRule
        self.isOptional = isOptional
    }

    /// Describes a to-one relationship.
    ///
    /// - Parameters:
    ///   - name: The relationship's name.
    ///   - destination: The name of the destination entity.
    ///   - inverse: The name of the inverse relationship on the destination, if any.
    ///   - deleteRule: What deleting the source does; ``DeleteRule/nullify`` by default.
    ///   - isOptional: Whether it may be `nil` at save; `true` by default.
    ///   - renamingIdentifier: Its name in the previous model version, if it was renamed.
    /// - Returns: The description.
    public static func toOne(
        _ name: String, destination: String, inverse: String?, deleteRule: DeleteRule = .nullify, isOptional: Bool = true,
        renamingIdentifier: String? = nil
    ) -> RelationshipDescription {
        RelationshipDescription(
            name, destination: destination, isToMany: false, inverse: inverse, deleteRule: deleteRule, isOptional: isOptional,
            renamingIdentifier: renamingIdentifier)
    }

    /// Describes a to-many relationship.
    ///
    /// - Parameters:
    ///   - name: The relationship's name.
    ///   - destination: The name of the destination entity.
    ///   - inverse: The name of the inverse relationship on the destination, if any.
    ///   - deleteRule: What deleting the source does; ``DeleteRule/nullify`` by default.
    ///   - renamingIdentifier: Its name in the previous model version, if it was renamed.
    /// - Returns: The description.
    public static func toMany(
        _ name: String, destination: String, inverse: String?, deleteRule: DeleteRule = .nullify,
        renamingIdentifier: String? = nil
    ) -> RelationshipDescription {
        RelationshipDescription(
            name, destination: destination, isToMany: true, inverse: inverse, deleteRule: deleteRule,
            renamingIdentifier: renamingIdentifier)
    }
}

/// What deleting an object does to the objects at the other end of one of its relationships.
public enum DeleteRule: String, Sendable, Hashable, CaseIterable {
    /// Removes the deleted object from the inverse relationship of each related object.
    case nullify
    /// Deletes the related objects too (and applies their own rules).
    case cascade
    /// Refuses the deletion while the relationship is not empty: the next save fails with ``StoreError/Code/deleteDenied``.
    case deny
    /// Does nothing: related objects keep pointing at the deleted object until the app fixes them.
    case noAction
}
