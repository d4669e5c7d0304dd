/// A key path checked against the model: to-one hops, then an attribute, a to-one relationship or the object itself.
struct ResolvedPath: Sendable {
    enum Terminal: Sendable {
        case attribute(Int, AttributeDescription)
        case toOne(Int, Relationship)
        /// `self`: the object's own ID.
        case identity
    }

    var keyPath: String
    /// The to-one relationships followed, with their index in their source entity.
    var hops: [(index: Int, relationship: Relationship)]
    var terminal: Terminal

    /// The entities reached through hops.
    var hopEntities: [String] { hops.map(\.relationship.destinationEntityName) }

    /// Resolves `keyPath` from `entity`; a key path the model does not have stops the program.
    init(_ keyPath: String, from entity: Entity, model: ResolvedModel) {
        self.keyPath = keyPath
        if keyPath == "self" {
            hops = []
            terminal = .identity
            return
        }
        let names = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var current = entity
        var hops: [(index: Int, relationship: Relationship)] = []
        for name in names.dropLast() {
            guard case .toOne(let index, let relationship) = current.properties[name] else {
                preconditionFailure(
                    "the key path \"\(keyPath)\" from \(entity.name): \"\(current.name).\(name)\" is not a to-one relationship "
                        + "(to-many key paths are not supported yet)")
            }
            hops.append((index, relationship))
            current = model.entity(relationship.destinationEntityName)
        }
        self.hops = hops
        let last = names.last ?? ""
        switch current.properties[last] {
        case .attribute(let index, let attribute): terminal = .attribute(index, attribute)
        case .toOne(let index, let relationship): terminal = .toOne(index, relationship)
        case .toMany:
            preconditionFailure("the key path \"\(keyPath)\" from \(entity.name) ends in the to-many relationship \(current.name).\(last)")
        case nil:
            preconditionFailure("the key path \"\(keyPath)\" from \(entity.name): \(current.name) has no property \"\(last)\"")
        }
    }
}

/// A predicate with its key paths resolved and its values checked against the attributes' types.
indirect enum ResolvedPredicate: Sendable {
    case constant(Bool)
    case comparison(ResolvedPath, FetchPredicate.ComparisonOperator, PropertyValue)
    case isIn(ResolvedPath, [PropertyValue])
    case string(ResolvedPath, FetchPredicate.StringOperator, String, StringComparisonOptions)
    case and([ResolvedPredicate])
    case or([ResolvedPredicate])
    case not(ResolvedPredicate)
    /// Some object of the to-many relationship (of the entity the predicate is about) meets the condition.
    case any(Relationship, ResolvedPredicate)

    /// Resolves `predicate` for objects of `entity`; a key or value that does not fit the model stops the program.
    init(_ predicate: FetchPredicate, entity: Entity, model: ResolvedModel) {
        self.init(predicate.node, entity: entity, model: model)
    }

    private init(_ node: FetchPredicate.Node, entity: Entity, model: ResolvedModel) {
        switch node {
        case .constant(let value):
            self = .constant(value)
        case .comparison(let keyPath, let op, let operand):
            let path = ResolvedPath(keyPath, from: entity, model: model)
            Self.check(operand, against: path, op: op, entity: entity)
            self = .comparison(path, op, operand)
        case .isIn(let keyPath, let operands):
            let path = ResolvedPath(keyPath, from: entity, model: model)
            for operand in operands {
                Self.check(operand, against: path, op: .equal, entity: entity)
            }
            self = .isIn(path, operands)
        case .string(let keyPath, let op, let pattern, let options):
            let path = ResolvedPath(keyPath, from: entity, model: model)
            guard case .attribute(_, let attribute) = path.terminal, attribute.type == .string else {
                preconditionFailure("\(op) on \"\(keyPath)\" of \(entity.name), which is not a string attribute")
            }
            self = .string(path, op, pattern, options)
        case .and(let nodes):
            self = .and(nodes.map { ResolvedPredicate($0, entity: entity, model: model) })
        case .or(let nodes):
            self = .or(nodes.map { ResolvedPredicate($0, entity: entity, model: model) })
        case .not(let node):
            self = .not(ResolvedPredicate(node, entity: entity, model: model))
        case .any(let key, let node):
            guard case .toMany(let relationship) = entity.properties[key] else {
                preconditionFailure("any(\"\(key)\") on \(entity.name): \"\(key)\" is not a to-many relationship of \(entity.name)")
            }
            let destination = model.entity(relationship.destinationEntityName)
            self = .any(relationship, ResolvedPredicate(node, entity: destination, model: model))
        }
    }

    private static func check(
        _ operand: PropertyValue, against path: ResolvedPath, op: FetchPredicate.ComparisonOperator, entity: Entity
    ) {
        let isEquality = op == .equal || op == .notEqual
        let subject = "\"\(path.keyPath)\" of \(entity.name)"
        switch (path.terminal, operand) {
        case (_, .attribute(nil)):
            precondition(isEquality, "\(op.rawValue) nil on \(subject): only == and != compare with nil")
        case (.attribute(_, let attribute), .attribute(let value?)):
            precondition(
                compatible(value.type, attribute.type),
                "\(subject) is a \(attribute.type) attribute and cannot be compared with the \(value.type) \(value)")
        case (.toOne(_, let relationship), .toOne(let id?)):
            precondition(isEquality, "\(op.rawValue) on the relationship \(subject): objects compare only with == and !=")
            precondition(
                id.entityName == relationship.destinationEntityName,
                "\(subject) holds \(relationship.destinationEntityName) objects and cannot be compared with \(id)")
        case (.identity, .toOne(let id?)):
            precondition(isEquality, "\(op.rawValue) on self: objects compare only with == and !=")
            precondition(id.entityName == entity.name, "\(entity.name) objects cannot be compared with \(id)")
        case (.toOne, _), (.identity, _):
            preconditionFailure("\(subject) is a relationship; compare it with an ObjectID or nil")
        case (.attribute(_, let attribute), _):
            preconditionFailure("\(subject) is a \(attribute.type) attribute; compare it with a value of that type")
        }
    }

    /// Whether values of `operand` compare with attributes of `attribute`: the same type, or two numbers.
    private static func compatible(_ operand: AttributeType, _ attribute: AttributeType) -> Bool {
        let numeric: Set<AttributeType> = [.integer16, .integer32, .integer64, .double]
        return operand == attribute || (numeric.contains(operand) && numeric.contains(attribute))
    }
}

/// A sort key checked against the model.
struct ResolvedSort: Sendable {
    var path: ResolvedPath
    var ascending: Bool

    init(_ descriptor: FetchRequest.SortDescriptor, entity: Entity, model: ResolvedModel) {
        path = ResolvedPath(descriptor.keyPath, from: entity, model: model)
        guard case .attribute = path.terminal else {
            preconditionFailure("cannot sort \(entity.name) by \"\(descriptor.keyPath)\": sort keys must be attributes")
        }
        ascending = descriptor.ascending
    }
}
