/// An entity: a kind of object, with its attributes, relationships, uniqueness constraints and indexes.
///
/// Each entity is stored in its own table, named after it.
///
/// ```swift
/// let book = EntityDescription(
///     "Book",
///     attributes: [
///         AttributeDescription("title", .string),
///         AttributeDescription("isbn", .string, isOptional: true),
///     ],
///     relationships: [.toOne("author", destination: "Author", inverse: "books")],
///     uniquenessConstraints: [["isbn"]],
///     indexes: [["title"]])
/// ```
public struct EntityDescription: Sendable, Hashable {
    /// The entity's name: letters, digits and `_`, starting with a letter; also the table name.
    public var name: String
    /// The attributes, in the order they are stored.
    public var attributes: [AttributeDescription]
    /// The relationships.
    public var relationships: [RelationshipDescription]
    /// Groups of attribute or to-one relationship names whose combined values must be unique among saved objects.
    public var uniquenessConstraints: [[String]]
    /// Groups of attribute or to-one relationship names to index, each group one index.
    public var indexes: [[String]]
    /// The entity's name in the previous model version, if it was renamed (for lightweight migration).
    public var renamingIdentifier: String?

    /// Describes an entity.
    ///
    /// - Parameters:
    ///   - name: The entity's name.
    ///   - attributes: Its attributes.
    ///   - relationships: Its relationships.
    ///   - uniquenessConstraints: Groups of property names that must be unique together.
    ///   - indexes: Groups of property names to index.
    ///   - renamingIdentifier: The entity's name in the previous model version, if it was renamed.
    public init(
        _ name: String, attributes: [AttributeDescription] = [], relationships: [RelationshipDescription] = [],
        uniquenessConstraints: [[String]] = [], indexes: [[String]] = [], renamingIdentifier: String? = nil
    ) {
        self.renamingIdentifier = renamingIdentifier
        self.name = name
        self.attributes = attributes
        self.relationships = relationships
        self.uniquenessConstraints = uniquenessConstraints
        self.indexes = indexes
    }

    /// The attribute called `name`, if any.
    ///
    /// - Parameter name: An attribute name.
    /// - Returns: The attribute, or `nil`.
    public func attribute(named name: String) -> AttributeDescription? {
        attributes.first { $0.name == name }
    }

    /// The relationship called `name`, if any.
    ///
    /// - Parameter name: A relationship name.
    /// - Returns: The relationship, or `nil`.
    public func relationship(named name: String) -> RelationshipDescription? {
        relationships.first { $0.name == name }
    }
}
