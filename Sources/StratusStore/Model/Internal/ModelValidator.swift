/// The checks ``ObjectModel`` runs on its entities before accepting them.
enum ModelValidator {
    /// Every problem with the model, as sentences; empty when the model is valid.
    static func problems(version: String, entities: [EntityDescription]) -> [String] {
        var problems: [String] = []
        if version.isEmpty {
            problems.append("the version identifier is empty")
        }
        if entities.isEmpty {
            problems.append("the model has no entities")
        }
        var entityNames: [String: String] = [:]  // lowercased → name
        for entity in entities {
            if let problem = identifierProblem(entity.name) {
                problems.append("entity \"\(entity.name)\": \(problem)")
            }
            if let other = entityNames[entity.name.lowercased()] {
                problems.append("entity \"\(entity.name)\" is declared twice (names are case-insensitive; see \"\(other)\")")
            }
            entityNames[entity.name.lowercased()] = entity.name
        }
        let byName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for entity in entities {
            problems += propertyProblems(entity, entitiesByName: byName)
        }
        return problems
    }

    private static func propertyProblems(_ entity: EntityDescription, entitiesByName: [String: EntityDescription]) -> [String] {
        var problems: [String] = []
        let prefix = "entity \"\(entity.name)\""
        var seen: Set<String> = []
        let names = entity.attributes.map(\.name) + entity.relationships.map(\.name)
        for name in names {
            if let problem = identifierProblem(name) {
                problems.append("\(prefix), property \"\(name)\": \(problem)")
            }
            if !seen.insert(name.lowercased()).inserted {
                problems.append("\(prefix) has two properties named \"\(name)\" (names are case-insensitive)")
            }
        }
        for attribute in entity.attributes {
            if let value = attribute.defaultValue, value.converted(to: attribute.type) == nil {
                problems.append(
                    "\(prefix), attribute \"\(attribute.name)\": the default value \(value) is of type \(value.type), not \(attribute.type)")
            }
        }
        for relationship in entity.relationships {
            problems += relationshipProblems(relationship, of: entity, entitiesByName: entitiesByName)
        }
        let indexable = Set(entity.attributes.map(\.name) + entity.relationships.filter { !$0.isToMany }.map(\.name))
        for (kind, groups) in [("uniqueness constraint", entity.uniquenessConstraints), ("index", entity.indexes)] {
            for group in groups {
                if group.isEmpty {
                    problems.append("\(prefix) has an empty \(kind)")
                }
                for name in group where !indexable.contains(name) {
                    problems.append(
                        "\(prefix), \(kind) \(group): \"\(name)\" is not an attribute or to-one relationship of the entity")
                }
            }
        }
        return problems
    }

    private static func relationshipProblems(
        _ relationship: RelationshipDescription, of entity: EntityDescription, entitiesByName: [String: EntityDescription]
    ) -> [String] {
        let prefix = "entity \"\(entity.name)\", relationship \"\(relationship.name)\""
        guard let destination = entitiesByName[relationship.destinationEntityName] else {
            return ["\(prefix): the destination entity \"\(relationship.destinationEntityName)\" does not exist"]
        }
        guard let inverseName = relationship.inverseName else { return [] }
        guard let inverse = destination.relationship(named: inverseName) else {
            return ["\(prefix): the inverse \"\(inverseName)\" is not a relationship of \"\(destination.name)\""]
        }
        if destination.name == entity.name && inverseName == relationship.name {
            return ["\(prefix): a relationship cannot be its own inverse"]
        }
        var problems: [String] = []
        if inverse.destinationEntityName != entity.name {
            problems.append(
                "\(prefix): its inverse \"\(destination.name).\(inverseName)\" points to \"\(inverse.destinationEntityName)\", not back to \"\(entity.name)\""
            )
        }
        if inverse.inverseName != relationship.name {
            let actual = inverse.inverseName.map { "\"\($0)\"" } ?? "no inverse"
            problems.append(
                "\(prefix): its inverse \"\(destination.name).\(inverseName)\" has \(actual) as its inverse, not \"\(relationship.name)\""
            )
        }
        return problems
    }

    /// Why `name` cannot name an entity or a property, or `nil` if it can.
    static func identifierProblem(_ name: String) -> String? {
        guard let first = name.unicodeScalars.first else { return "the name is empty" }
        guard ("a"..."z").contains(first) || ("A"..."Z").contains(first) else {
            return "the name must start with an ASCII letter"
        }
        let allowed = name.unicodeScalars.allSatisfy { scalar in
            ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "_"
        }
        guard allowed else { return "the name may hold only ASCII letters, digits and \"_\"" }
        if name.uppercased().hasPrefix("Z_") {
            return "names starting with \"Z_\" are reserved for the store"
        }
        if name == "self" {
            return "\"self\" is reserved for predicates"
        }
        return nil
    }
}
