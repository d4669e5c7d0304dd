/// Evaluates fetch predicates and sort orders on a context's objects in memory, as SQL would: what a
/// fetch runs on the objects the context chain has inserted or changed (the store's SQL answers for the rest).
///
/// One job: SQL's three-valued logic and ordering over ``ManagedObject`` values read through the context.
struct ObjectMatcher {
    /// The context whose objects (and faults) are read.
    let context: ObjectContext

    /// The value at the end of a key path for `object`, `nil` when a hop is empty.
    private func pathValue(_ path: ResolvedPath, of object: ManagedObject) -> PropertyValue {
        var current = object
        for hop in path.hops {
            guard let next = context.toOneID(of: current, at: hop.index) else {
                if case .attribute = path.terminal { return .attribute(nil) }
                return .toOne(nil)
            }
            current = context.registeredObject(next)
        }
        switch path.terminal {
        case .attribute(let index, _): return .attribute(context.attribute(of: current, at: index))
        case .toOne(let index, _): return .toOne(context.toOneID(of: current, at: index))
        case .identity: return .toOne(current.objectID)
        }
    }

    /// The predicate's value for `object` in SQL's three-valued logic: `nil` is unknown.
    func evaluate(_ predicate: ResolvedPredicate, on object: ManagedObject) -> Bool? {
        switch predicate {
        case .constant(let value):
            return value
        case .comparison(let path, let op, let operand):
            let value = pathValue(path, of: object)
            switch op {
            case .equal: return Self.isSame(value, operand)
            case .notEqual: return !Self.isSame(value, operand)
            case .less, .lessOrEqual, .greater, .greaterOrEqual:
                guard case .attribute(let left?) = value, case .attribute(let right?) = operand,
                    let order = ValueComparison.compare(left, right)
                else { return nil }
                switch op {
                case .less: return order < 0
                case .lessOrEqual: return order <= 0
                case .greater: return order > 0
                default: return order >= 0
                }
            }
        case .isIn(let path, let operands):
            let value = pathValue(path, of: object)
            if value == .attribute(nil) || value == .toOne(nil) { return nil }
            return operands.contains { Self.isSame(value, $0) }
        case .string(let path, let op, let pattern, let options):
            guard case .attribute(.string(let text)?) = pathValue(path, of: object) else { return nil }
            return ValueComparison.matches(text, op, pattern, options)
        case .and(let predicates):
            var result: Bool? = true
            for predicate in predicates {
                switch evaluate(predicate, on: object) {
                case false?: return false
                case nil: result = nil
                case true?: break
                }
            }
            return result
        case .or(let predicates):
            var result: Bool? = false
            for predicate in predicates {
                switch evaluate(predicate, on: object) {
                case true?: return true
                case nil: result = nil
                case false?: break
                }
            }
            return result
        case .not(let predicate):
            return evaluate(predicate, on: object).map { !$0 }
        case .any(let relationship, let predicate):
            let related = context.toManyIDs(of: object, relationship).sorted().map(context.registeredObject)
            do {
                try context.fulfillFaults(related)
            } catch {
                preconditionFailure("could not load \(object.objectID).\(relationship.name) in context \"\(context.name)\": \(error)")
            }
            return related.contains { !$0.isDeletedFlag && !$0.isInaccessible && evaluate(predicate, on: $0) == true }
        }
    }

    /// SQL's `IS`: `nil` equals only `nil`.
    private static func isSame(_ value: PropertyValue, _ operand: PropertyValue) -> Bool {
        switch (value, operand) {
        case (.attribute(nil), .attribute(nil)), (.toOne(nil), .toOne(nil)), (.toOne(nil), .attribute(nil)):
            return true
        case (.attribute(let left?), .attribute(let right?)):
            return ValueComparison.compare(left, right) == 0
        case (.toOne(let left?), .toOne(let right?)):
            return left == right
        default:
            return false
        }
    }

    func sort(_ objects: [ManagedObject], by sorts: [ResolvedSort]) -> [ManagedObject] {
        let keyed = objects.map { object in
            (
                object,
                sorts.map { sort -> AttributeValue? in
                    guard case .attribute(let value) = pathValue(sort.path, of: object) else { return nil }
                    return value
                }
            )
        }
        return keyed.sorted { lhs, rhs in
            for (index, sort) in sorts.enumerated() {
                let order = ValueComparison.sortOrder(lhs.1[index], rhs.1[index])
                if order != 0 { return sort.ascending ? order < 0 : order > 0 }
            }
            return lhs.0.objectID < rhs.0.objectID
        }.map(\.0)
    }
}
