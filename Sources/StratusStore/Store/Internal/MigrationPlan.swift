import StratusSQLite

/// The steps that migrate a store from the model it records to the program's model, inferred by comparing them.
///
/// Entities, attributes and relationships are matched by the new description's
/// `renamingIdentifier` (or else its name). Everything that cannot be inferred is collected
/// in ``problems``; a plan with problems must not run.
struct MigrationPlan {
    enum Step {
        /// One SQL statement.
        case sql(String)
        /// Sets a column to a value, in every row or only where it is `NULL`; `sourceTable` is the
        /// table's name before the migration (to size the work up front).
        case fill(table: String, column: String, value: SQLiteValue, onlyNull: Bool, sourceTable: String)
        /// Drops every index the store made (they are made again at the end).
        case dropStoreIndexes
    }

    private(set) var steps: [Step] = []
    private(set) var problems: [String] = []

    private let old: ResolvedModel
    private let new: ResolvedModel
    private let schema: StoreSchema
    /// The old name of each new entity that existed before.
    private var entitySources: [String: String] = [:]
    private var temporaryCount = 0

    init(from oldModel: ResolvedModel, to newModel: ResolvedModel, schema: StoreSchema) {
        old = oldModel
        new = newModel
        self.schema = schema
        matchEntities()
        steps.append(.dropStoreIndexes)
        renameAndDropTables()
        for entity in new.entities {
            if let source = entitySources[entity.name] {
                migrateColumns(of: entity, from: old.entity(source))
            } else if let create = schema.entityTables[entity.name] {
                steps.append(.sql(create))
            }
        }
        migrateJoinTables()
        steps += schema.indexes.map { .sql($0) }
        renameInBookkeeping()
    }

    // MARK: Entities

    private mutating func matchEntities() {
        var claimed: Set<String> = []
        for entity in new.entities {
            let candidates = [entity.description.renamingIdentifier, entity.name].compactMap { $0 }
            if let source = candidates.first(where: { old.entitiesByName[$0] != nil && !claimed.contains($0) }) {
                entitySources[entity.name] = source
                claimed.insert(source)
            }
        }
    }

    private mutating func renameAndDropTables() {
        let kept = Set(entitySources.values)
        for entity in old.entities where !kept.contains(entity.name) {
            steps.append(.sql("DROP TABLE \(quote(entity.name))"))
        }
        let renamed = entitySources.filter { $0.key != $0.value }.sorted { $0.key < $1.key }
        var temporary: [(String, String)] = []
        for (target, source) in renamed {
            let name = nextTemporaryName()
            steps.append(.sql("ALTER TABLE \(quote(source)) RENAME TO \(quote(name))"))
            temporary.append((name, target))
        }
        for (name, target) in temporary {
            steps.append(.sql("ALTER TABLE \(quote(name)) RENAME TO \(quote(target))"))
        }
    }

    private mutating func nextTemporaryName() -> String {
        temporaryCount += 1
        return "Z_MIGRATING_\(temporaryCount)"
    }

    // MARK: Columns

    /// The old property a new one continues: by renaming identifier, then by name.
    private func source(of name: String, renamingIdentifier: String?, in entity: Entity) -> (String, Entity.Property)? {
        for candidate in [renamingIdentifier, name].compactMap({ $0 }) {
            if let property = entity.properties[candidate] { return (candidate, property) }
        }
        return nil
    }

    /// What the columns of one entity's table become: the old columns kept, renamed, added and filled.
    private struct ColumnChanges {
        var claimed: Set<String> = []
        var renames: [(from: String, to: String)] = []
        var additions: [String] = []
        var fills: [Step] = []
    }

    private mutating func migrateColumns(of entity: Entity, from oldEntity: Entity) {
        var changes = ColumnChanges()
        planAttributes(of: entity, from: oldEntity, into: &changes)
        planToOneRelationships(of: entity, from: oldEntity, into: &changes)
        checkToManyRelationships(of: entity, from: oldEntity, into: &changes)
        appendColumnSteps(quote(entity.name), changes, dropping: oldEntity)
    }

    private mutating func planAttributes(of entity: Entity, from oldEntity: Entity, into changes: inout ColumnChanges) {
        for attribute in entity.attributes {
            let label = "\(entity.name).\(attribute.name)"
            guard let (oldName, property) = source(of: attribute.name, renamingIdentifier: attribute.renamingIdentifier, in: oldEntity)
            else {
                changes.additions.append("\(quote(attribute.name)) \(attribute.type.sqlColumnType)")
                if let value = defaultValue(of: attribute) {
                    changes.fills.append(
                        .fill(table: entity.name, column: attribute.name, value: value, onlyNull: false, sourceTable: oldEntity.name))
                } else if !attribute.isOptional {
                    problems.append("\(label) was added as a required attribute without a default value")
                }
                continue
            }
            changes.claimed.insert(oldName)
            guard case .attribute(_, let oldAttribute) = property else {
                problems.append("\(label) was a relationship and is now an attribute")
                continue
            }
            if oldAttribute.type != attribute.type {
                problems.append("\(label) changed type from \(oldAttribute.type) to \(attribute.type)")
            }
            if oldName != attribute.name { changes.renames.append((oldName, attribute.name)) }
            if oldAttribute.isOptional && !attribute.isOptional {
                if let value = defaultValue(of: attribute) {
                    changes.fills.append(
                        .fill(table: entity.name, column: attribute.name, value: value, onlyNull: true, sourceTable: oldEntity.name))
                } else {
                    problems.append("\(label) became required without a default value")
                }
            }
        }
    }

    private mutating func planToOneRelationships(of entity: Entity, from oldEntity: Entity, into changes: inout ColumnChanges) {
        for relationship in entity.toOneRelationships {
            let label = "\(entity.name).\(relationship.name)"
            let description = entity.description.relationship(named: relationship.name)
            guard
                let (oldName, property) = source(
                    of: relationship.name, renamingIdentifier: description?.renamingIdentifier, in: oldEntity)
            else {
                changes.additions.append("\(quote(relationship.name)) INTEGER")
                if !relationship.isOptional { problems.append("\(label) was added as a required to-one relationship") }
                continue
            }
            changes.claimed.insert(oldName)
            guard case .toOne(_, let oldRelationship) = property else {
                problems.append("\(label) was \(Self.kind(of: property)) and is now a to-one relationship")
                continue
            }
            checkDestination(relationship, was: oldRelationship, label: label)
            if oldName != relationship.name { changes.renames.append((oldName, relationship.name)) }
            if oldRelationship.isOptional && !relationship.isOptional {
                problems.append("\(label) became a required to-one relationship")
            }
        }
    }

    private mutating func checkToManyRelationships(of entity: Entity, from oldEntity: Entity, into changes: inout ColumnChanges) {
        for relationship in entity.toManyRelationships {
            let label = "\(entity.name).\(relationship.name)"
            let description = entity.description.relationship(named: relationship.name)
            guard
                let (oldName, property) = source(
                    of: relationship.name, renamingIdentifier: description?.renamingIdentifier, in: oldEntity)
            else { continue }
            changes.claimed.insert(oldName)
            guard case .toMany(let oldRelationship) = property else {
                problems.append("\(label) was \(Self.kind(of: property)) and is now a to-many relationship")
                continue
            }
            checkDestination(relationship, was: oldRelationship, label: label)
            switch (oldRelationship.storage, relationship.storage) {
            case (.inverseForeignKey, .inverseForeignKey), (.joinTable, .joinTable): break
            default: problems.append("\(label) changed between one-to-many and many-to-many")
            }
        }
    }

    /// The `ALTER TABLE` steps: renames through temporary names (so that swapped names work), drops of the
    /// old columns nothing claimed, the final names, the additions, then the fills.
    private mutating func appendColumnSteps(_ table: String, _ changes: ColumnChanges, dropping oldEntity: Entity) {
        var temporary: [(String, String)] = []
        for rename in changes.renames {
            let name = nextTemporaryName()
            steps.append(.sql("ALTER TABLE \(table) RENAME COLUMN \(quote(rename.from)) TO \(quote(name))"))
            temporary.append((name, rename.to))
        }
        let dropped = oldEntity.attributes.map(\.name) + oldEntity.toOneRelationships.map(\.name)
        for name in dropped where !changes.claimed.contains(name) {
            steps.append(.sql("ALTER TABLE \(table) DROP COLUMN \(quote(name))"))
        }
        for (name, target) in temporary {
            steps.append(.sql("ALTER TABLE \(table) RENAME COLUMN \(quote(name)) TO \(quote(target))"))
        }
        for addition in changes.additions {
            steps.append(.sql("ALTER TABLE \(table) ADD COLUMN \(addition)"))
        }
        steps += changes.fills
    }

    private func defaultValue(of attribute: AttributeDescription) -> SQLiteValue? {
        attribute.defaultValue.flatMap { $0.converted(to: attribute.type) }?.sqliteValue
    }

    private static func kind(of property: Entity.Property) -> String {
        switch property {
        case .attribute: "an attribute"
        case .toOne: "a to-one relationship"
        case .toMany: "a to-many relationship"
        }
    }

    private mutating func checkDestination(_ relationship: Relationship, was oldRelationship: Relationship, label: String) {
        if entitySources[relationship.destinationEntityName] != oldRelationship.destinationEntityName {
            problems.append(
                "\(label) changed destination from \(oldRelationship.destinationEntityName) to \(relationship.destinationEntityName)")
        }
    }

    // MARK: Join tables

    private mutating func migrateJoinTables() {
        var copies: [(temporary: String, target: String)] = []
        var keptTables: Set<String> = []
        for entity in new.entities {
            for relationship in entity.toManyRelationships {
                guard case .joinTable(let join) = relationship.storage, join.isOwner else { continue }
                guard let oldJoin = oldJoinTable(of: relationship, in: entity) else {
                    steps.append(.sql(StoreSchema.createJoinTable(join.table)))
                    continue
                }
                if oldJoin.table == join.table && oldJoin.sourceColumn == "Z_SOURCE" {
                    keptTables.insert(join.table)
                    continue
                }
                let name = nextTemporaryName()
                steps.append(.sql(StoreSchema.createJoinTable(name)))
                steps.append(
                    .sql(
                        "INSERT INTO \(quote(name)) (Z_SOURCE, Z_TARGET) SELECT \(oldJoin.sourceColumn), \(oldJoin.targetColumn) "
                            + "FROM \(quote(oldJoin.table))"))
                copies.append((name, join.table))
            }
        }
        for entity in old.entities {
            for relationship in entity.toManyRelationships {
                guard case .joinTable(let join) = relationship.storage, join.isOwner, !keptTables.contains(join.table) else {
                    continue
                }
                steps.append(.sql("DROP TABLE IF EXISTS \(quote(join.table))"))
            }
        }
        for copy in copies {
            steps.append(.sql("ALTER TABLE \(quote(copy.temporary)) RENAME TO \(quote(copy.target))"))
        }
    }

    /// The old join table of a new relationship, seen from the same side, if the relationship existed as many-to-many.
    private func oldJoinTable(of relationship: Relationship, in entity: Entity) -> Relationship.JoinTable? {
        guard let oldEntityName = entitySources[entity.name] else { return nil }
        let description = entity.description.relationship(named: relationship.name)
        guard
            let (_, property) = source(
                of: relationship.name, renamingIdentifier: description?.renamingIdentifier, in: old.entity(oldEntityName)),
            case .toMany(let oldRelationship) = property, case .joinTable(let join) = oldRelationship.storage
        else { return nil }
        return join
    }

    // MARK: Bookkeeping

    private mutating func renameInBookkeeping() {
        for (target, source) in entitySources.sorted(by: { $0.key < $1.key }) where target != source {
            steps.append(
                .sql(
                    "UPDATE \(StoreSchema.primaryKeyTable) SET Z_ENTITY = '\(target)' WHERE Z_ENTITY = '\(source)'"))
            steps.append(.sql("UPDATE \(StoreSchema.changeTable) SET Z_ENTITY = '\(target)' WHERE Z_ENTITY = '\(source)'"))
        }
        let kept = Set(entitySources.values)
        for entity in old.entities where !kept.contains(entity.name) {
            steps.append(.sql("DELETE FROM \(StoreSchema.primaryKeyTable) WHERE Z_ENTITY = '\(entity.name)'"))
        }
    }
}
