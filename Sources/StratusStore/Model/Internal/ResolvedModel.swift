/// The model with names resolved into lookups and storage decided: what contexts and the store work from.
final class ResolvedModel: Sendable {
    let entities: [Entity]
    let entitiesByName: [String: Entity]

    init(entities descriptions: [EntityDescription]) {
        let byName = Dictionary(descriptions.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var joinColumns: [String: [JoinColumn]] = [:]
        for description in descriptions {
            for relationship in description.relationships {
                guard let join = Relationship.joinTable(for: relationship, of: description, entitiesByName: byName),
                    join.isOwner
                else { continue }
                joinColumns[description.name, default: []].append(JoinColumn(table: join.table, column: join.sourceColumn))
                joinColumns[relationship.destinationEntityName, default: []].append(
                    JoinColumn(table: join.table, column: join.targetColumn))
            }
        }
        entities = descriptions.map { description in
            Entity(description: description, entitiesByName: byName, joinColumns: joinColumns[description.name] ?? [])
        }
        entitiesByName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The entity called `name`; a name the model does not have is a programming error.
    func entity(_ name: String) -> Entity {
        guard let entity = entitiesByName[name] else {
            preconditionFailure(
                "the model has no entity named \"\(name)\" (entities: \(entities.map(\.name).joined(separator: ", ")))")
        }
        return entity
    }
}

/// A table column that holds an entity's primary key in a join table.
struct JoinColumn: Sendable, Hashable {
    var table: String
    var column: String
}

/// An entity with its properties indexed for the hot paths.
final class Entity: Sendable {
    let description: EntityDescription
    let name: String
    let attributes: [AttributeDescription]
    let toOneRelationships: [Relationship]
    let toManyRelationships: [Relationship]
    let properties: [String: Property]
    /// Every join-table column where this entity's primary keys appear (cleaned up when objects are deleted).
    let joinColumns: [JoinColumn]
    /// Whether the entity has no relationships (its objects hold no references to rewrite).
    var hasNoRelationships: Bool { toOneRelationships.isEmpty && toManyRelationships.isEmpty }
    /// The indexes of the non-optional attributes, checked at every save.
    let requiredAttributeIndexes: [Int]
    /// The indexes of the non-optional to-one relationships, checked at every save.
    let requiredToOneIndexes: [Int]

    /// A property of an entity, with its position in a snapshot.
    enum Property: Sendable {
        case attribute(Int, AttributeDescription)
        case toOne(Int, Relationship)
        case toMany(Relationship)
    }

    init(description: EntityDescription, entitiesByName: [String: EntityDescription], joinColumns: [JoinColumn]) {
        self.description = description
        name = description.name
        attributes = description.attributes
        var toOne: [Relationship] = []
        var toMany: [Relationship] = []
        for relationship in description.relationships {
            let resolved = Relationship(relationship, of: description, entitiesByName: entitiesByName)
            if relationship.isToMany {
                toMany.append(resolved)
            } else {
                toOne.append(resolved)
            }
        }
        toOneRelationships = toOne
        toManyRelationships = toMany
        var properties: [String: Property] = [:]
        for (index, attribute) in attributes.enumerated() {
            properties[attribute.name] = .attribute(index, attribute)
        }
        for (index, relationship) in toOne.enumerated() {
            properties[relationship.name] = .toOne(index, relationship)
        }
        for relationship in toMany {
            properties[relationship.name] = .toMany(relationship)
        }
        self.properties = properties
        self.joinColumns = joinColumns
        let attributes = description.attributes
        requiredAttributeIndexes = attributes.indices.filter { !attributes[$0].isOptional }
        requiredToOneIndexes = toOne.indices.filter { !toOne[$0].isOptional }
        insertionSnapshot = Snapshot(
            attributes: attributes.map { attribute in attribute.defaultValue.flatMap { $0.converted(to: attribute.type) } },
            toOne: Array(repeating: nil, count: toOne.count))
    }

    /// The property called `key`; a key the entity does not have is a programming error.
    func property(_ key: String) -> Property {
        guard let property = properties[key] else {
            preconditionFailure(
                "the entity \"\(name)\" has no property named \"\(key)\" (properties: \(properties.keys.sorted().joined(separator: ", ")))"
            )
        }
        return property
    }

    /// The relationship called `key`; a key that is not a relationship is a programming error.
    func relationship(_ key: String) -> Relationship {
        switch property(key) {
        case .toOne(_, let relationship), .toMany(let relationship): return relationship
        case .attribute: preconditionFailure("\"\(name).\(key)\" is an attribute, not a relationship")
        }
    }

    /// A snapshot of a newly inserted object: default values, no related objects.
    let insertionSnapshot: Snapshot
}

/// A relationship with its inverse and storage resolved.
struct Relationship: Sendable, Hashable {
    /// How a relationship is stored.
    enum Storage: Sendable, Hashable {
        /// A to-one: a column of the source table holding the destination's primary key.
        case foreignKey(column: String)
        /// A to-many whose inverse is to-one: the inverse's column in the destination table.
        case inverseForeignKey(column: String)
        /// A to-many whose inverse is to-many, or that has no inverse: rows of a join table.
        case joinTable(JoinTable)
    }

    /// A join table as seen from one side of the relationship.
    struct JoinTable: Sendable, Hashable {
        var table: String
        /// The column holding this side's primary key.
        var sourceColumn: String
        /// The column holding the other side's primary key.
        var targetColumn: String
        /// Whether this side writes the rows (the other side of a pair only reads them).
        var isOwner: Bool
    }

    let name: String
    let sourceEntityName: String
    let destinationEntityName: String
    let isToMany: Bool
    let inverseName: String?
    let inverseIsToMany: Bool
    let deleteRule: DeleteRule
    let isOptional: Bool
    let storage: Storage

    init(_ relationship: RelationshipDescription, of entity: EntityDescription, entitiesByName: [String: EntityDescription]) {
        name = relationship.name
        sourceEntityName = entity.name
        destinationEntityName = relationship.destinationEntityName
        isToMany = relationship.isToMany
        inverseName = relationship.inverseName
        let inverse = relationship.inverseName.flatMap { entitiesByName[relationship.destinationEntityName]?.relationship(named: $0) }
        inverseIsToMany = inverse?.isToMany ?? false
        deleteRule = relationship.deleteRule
        isOptional = relationship.isOptional
        if !relationship.isToMany {
            storage = .foreignKey(column: relationship.name)
        } else if let inverse, !inverse.isToMany {
            storage = .inverseForeignKey(column: inverse.name)
        } else if let join = Self.joinTable(for: relationship, of: entity, entitiesByName: entitiesByName) {
            storage = .joinTable(join)
        } else {
            preconditionFailure("no storage for \(entity.name).\(relationship.name)")
        }
    }

    /// The join table of a to-many relationship whose inverse is to-many or missing, else `nil`.
    ///
    /// A pair of to-many relationships shares one table, owned by the side whose
    /// `Entity.relationship` name sorts first.
    static func joinTable(
        for relationship: RelationshipDescription, of entity: EntityDescription, entitiesByName: [String: EntityDescription]
    ) -> JoinTable? {
        guard relationship.isToMany else { return nil }
        let inverse = relationship.inverseName.flatMap { entitiesByName[relationship.destinationEntityName]?.relationship(named: $0) }
        if let inverse, !inverse.isToMany { return nil }
        let mine = "\(entity.name)_\(relationship.name)"
        guard let inverse else {
            return JoinTable(table: "Z_\(mine)", sourceColumn: "Z_SOURCE", targetColumn: "Z_TARGET", isOwner: true)
        }
        let theirs = "\(relationship.destinationEntityName)_\(inverse.name)"
        if mine <= theirs {
            return JoinTable(table: "Z_\(mine)", sourceColumn: "Z_SOURCE", targetColumn: "Z_TARGET", isOwner: true)
        }
        return JoinTable(table: "Z_\(theirs)", sourceColumn: "Z_TARGET", targetColumn: "Z_SOURCE", isOwner: false)
    }
}
