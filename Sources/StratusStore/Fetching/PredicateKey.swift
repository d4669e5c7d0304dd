public import Foundation

/// A typed key path for predicates: an attribute (or to-one relationship), possibly through to-one relationships.
///
/// ```swift
/// let name = PredicateKey<String>("author.name")
/// let author = PredicateKey<ObjectID>("author")
/// let request = FetchRequest(entityName: "Book", predicate: name.contains("le guin", options: .caseInsensitive))
/// let byAuthor = FetchRequest(entityName: "Book", predicate: author == authorID)
/// ```
///
/// `Value` must match the attribute's type (any integer type matches any integer
/// attribute; integers and doubles compare with each other); a to-one relationship is
/// compared with ``ObjectID`` values.
public struct PredicateKey<Value: PredicateValue>: Sendable, Hashable {
    /// The key path, such as `"title"` or `"author.name"`.
    public let keyPath: String

    /// Makes a key.
    ///
    /// - Parameter keyPath: Property names separated by dots; all but the last must be to-one relationships.
    public init(_ keyPath: String) {
        self.keyPath = keyPath
    }

    /// Matches objects whose value equals `value` (`nil` never equals a value).
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - value: The value.
    /// - Returns: The condition.
    public static func == (key: PredicateKey, value: Value) -> FetchPredicate {
        FetchPredicate(.comparison(key.keyPath, .equal, value.predicateValue))
    }

    /// Matches objects whose value is unset.
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - nil: `nil`.
    /// - Returns: The condition.
    public static func == (key: PredicateKey, _: _OptionalNilComparisonType) -> FetchPredicate {
        FetchPredicate(.comparison(key.keyPath, .equal, .attribute(nil)))
    }

    /// Matches objects whose value differs from `value`, including unset ones.
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - value: The value.
    /// - Returns: The condition.
    public static func != (key: PredicateKey, value: Value) -> FetchPredicate {
        FetchPredicate(.comparison(key.keyPath, .notEqual, value.predicateValue))
    }

    /// Matches objects whose value is set.
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - nil: `nil`.
    /// - Returns: The condition.
    public static func != (key: PredicateKey, _: _OptionalNilComparisonType) -> FetchPredicate {
        FetchPredicate(.comparison(key.keyPath, .notEqual, .attribute(nil)))
    }

    /// Matches objects whose value equals one of `values`.
    ///
    /// - Parameter values: The values.
    /// - Returns: The condition.
    public func isIn(_ values: some Sequence<Value>) -> FetchPredicate {
        FetchPredicate(.isIn(keyPath, values.map(\.predicateValue)))
    }
}

extension PredicateKey where Value: Comparable {
    /// Matches objects whose value is less than `value`.
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - value: The bound.
    /// - Returns: The condition.
    public static func < (key: PredicateKey, value: Value) -> FetchPredicate {
        FetchPredicate(.comparison(key.keyPath, .less, value.predicateValue))
    }

    /// Matches objects whose value is less than or equal to `value`.
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - value: The bound.
    /// - Returns: The condition.
    public static func <= (key: PredicateKey, value: Value) -> FetchPredicate {
        FetchPredicate(.comparison(key.keyPath, .lessOrEqual, value.predicateValue))
    }

    /// Matches objects whose value is greater than `value`.
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - value: The bound.
    /// - Returns: The condition.
    public static func > (key: PredicateKey, value: Value) -> FetchPredicate {
        FetchPredicate(.comparison(key.keyPath, .greater, value.predicateValue))
    }

    /// Matches objects whose value is greater than or equal to `value`.
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - value: The bound.
    /// - Returns: The condition.
    public static func >= (key: PredicateKey, value: Value) -> FetchPredicate {
        FetchPredicate(.comparison(key.keyPath, .greaterOrEqual, value.predicateValue))
    }
}

extension PredicateKey where Value == String {
    /// Matches strings that begin with `prefix`.
    ///
    /// - Parameters:
    ///   - prefix: The prefix.
    ///   - options: Case and diacritic insensitivity.
    /// - Returns: The condition.
    public func beginsWith(_ prefix: String, options: StringComparisonOptions = []) -> FetchPredicate {
        FetchPredicate(.string(keyPath, .beginsWith, prefix, options))
    }

    /// Matches strings that contain `substring`.
    ///
    /// - Parameters:
    ///   - substring: The substring.
    ///   - options: Case and diacritic insensitivity.
    /// - Returns: The condition.
    public func contains(_ substring: String, options: StringComparisonOptions = []) -> FetchPredicate {
        FetchPredicate(.string(keyPath, .contains, substring, options))
    }

    /// Matches strings that end with `suffix`.
    ///
    /// - Parameters:
    ///   - suffix: The suffix.
    ///   - options: Case and diacritic insensitivity.
    /// - Returns: The condition.
    public func endsWith(_ suffix: String, options: StringComparisonOptions = []) -> FetchPredicate {
        FetchPredicate(.string(keyPath, .endsWith, suffix, options))
    }
}

/// A type whose values can be compared with attributes in predicates.
public protocol PredicateValue: Sendable {
    /// The value as a property value: an attribute value, or an object ID for relationships.
    var predicateValue: PropertyValue { get }
}

extension String: PredicateValue {
    /// The value as a ``AttributeValue/string(_:)``.
    public var predicateValue: PropertyValue { .attribute(.string(self)) }
}

extension Int: PredicateValue {
    /// The value as an ``AttributeValue/integer64(_:)``.
    public var predicateValue: PropertyValue { .attribute(.integer64(Int64(self))) }
}

extension Int16: PredicateValue {
    /// The value as an ``AttributeValue/integer16(_:)``.
    public var predicateValue: PropertyValue { .attribute(.integer16(self)) }
}

extension Int32: PredicateValue {
    /// The value as an ``AttributeValue/integer32(_:)``.
    public var predicateValue: PropertyValue { .attribute(.integer32(self)) }
}

extension Int64: PredicateValue {
    /// The value as an ``AttributeValue/integer64(_:)``.
    public var predicateValue: PropertyValue { .attribute(.integer64(self)) }
}

extension Double: PredicateValue {
    /// The value as a ``AttributeValue/double(_:)``.
    public var predicateValue: PropertyValue { .attribute(.double(self)) }
}

extension Decimal: PredicateValue {
    /// The value as a ``AttributeValue/decimal(_:)``.
    public var predicateValue: PropertyValue { .attribute(.decimal(self)) }
}

extension Bool: PredicateValue {
    /// The value as a ``AttributeValue/boolean(_:)``.
    public var predicateValue: PropertyValue { .attribute(.boolean(self)) }
}

extension Date: PredicateValue {
    /// The value as a ``AttributeValue/date(_:)``.
    public var predicateValue: PropertyValue { .attribute(.date(self)) }
}

extension Data: PredicateValue {
    /// The value as a ``AttributeValue/binaryData(_:)``.
    public var predicateValue: PropertyValue { .attribute(.binaryData(self)) }
}

extension UUID: PredicateValue {
    /// The value as a ``AttributeValue/uuid(_:)``.
    public var predicateValue: PropertyValue { .attribute(.uuid(self)) }
}

extension URL: PredicateValue {
    /// The value as a ``AttributeValue/uri(_:)``.
    public var predicateValue: PropertyValue { .attribute(.uri(self)) }
}

extension ObjectID: PredicateValue {
    /// The value as a ``PropertyValue/toOne(_:)``.
    public var predicateValue: PropertyValue { .toOne(self) }
}

extension AttributeValue: PredicateValue {
    /// The value as a ``PropertyValue/attribute(_:)``.
    public var predicateValue: PropertyValue { .attribute(self) }
}
