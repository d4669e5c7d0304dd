/// A JSON document that keeps integers and doubles apart.
///
/// `JSONValue` is the loss-free in-memory form of any JSON text. Unlike
/// `JSONSerialization` or `JSONDecoder`, it never turns `2.0` into `2` or an
/// `Int64` above 2^53 into a rounded double: integers are `Int64`, numbers with
/// a fraction or an exponent are `Double`.
///
/// ```swift
/// let json = try JSONValue(parsing: Data(#"{"value": 2.0}"#.utf8))
/// json["value"]   // .double(2.0)
/// ```
///
/// Field-value type inference (``FieldValue/init(json:expecting:codingPath:)``)
/// and the golden-fixture tests are built on it.
public enum JSONValue: Hashable, Sendable {
    /// The JSON literal `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without a fraction or exponent that fits in `Int64`.
    case integer(Int64)
    /// A number written with a fraction or exponent, or too large for `Int64`.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object; key order is not kept (the writer sorts keys).
    case object([String: JSONValue])
}

extension JSONValue {
    /// The member named `key` when this is an object, otherwise `nil`.
    ///
    /// - Parameter key: The object key to look up.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }

    /// The element at `index` when this is an array and the index is valid, otherwise `nil`.
    ///
    /// - Parameter index: A zero-based array index.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// The object members when this is an object, otherwise `nil`.
    public var objectValue: [String: JSONValue]? {
        guard case .object(let members) = self else { return nil }
        return members
    }

    /// The elements when this is an array, otherwise `nil`.
    public var arrayValue: [JSONValue]? {
        guard case .array(let elements) = self else { return nil }
        return elements
    }

    /// The string when this is a string, otherwise `nil`.
    public var stringValue: String? {
        guard case .string(let string) = self else { return nil }
        return string
    }

    /// A short English phrase naming the kind of value, for error messages ("a string", "an integer").
    public var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer: "an integer"
        case .double: "a non-integer number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral {
    /// Creates a string value.
    ///
    /// - Parameter value: The string.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    /// Creates an integer value.
    ///
    /// - Parameter value: The integer.
    public init(integerLiteral value: Int64) { self = .integer(value) }
}

extension JSONValue: ExpressibleByFloatLiteral {
    /// Creates a double value.
    ///
    /// - Parameter value: The number.
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    /// Creates a boolean value.
    ///
    /// - Parameter value: The boolean.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension JSONValue: ExpressibleByArrayLiteral {
    /// Creates an array value.
    ///
    /// - Parameter elements: The elements.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// Creates an object value; a repeated key keeps its last value.
    ///
    /// - Parameter elements: The key-value pairs.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
